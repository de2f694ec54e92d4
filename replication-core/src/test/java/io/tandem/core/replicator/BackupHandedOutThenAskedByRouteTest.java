package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 345050 (docs/protocol.md 11.3.39): n2's owner was killed, and n3 handed the backup it held to n4, which
 * asked for it. Once that handover was done nothing on n3 said it had let the session go. n2 came back empty, and a
 * request on n3 whose cookie still named n2 asked n2 (n3 itself being n2's successor), heard "not held", and answered
 * that no such session exists, while n4 owned it: a new, empty session in place of one a 200 had acknowledged. A
 * backup handed out is remembered as let go of, as a session handed away is: the request asks every member.
 */
class BackupHandedOutThenAskedByRouteTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void requestRoutedToTheRestartedOwner_onTheMemberThatHandedItsBackupOut_findsTheSession() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(50))
        .ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofMillis(300)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n1 is killed; n3 (whose buddy is n4) is asked for the session and takes it over from n2, which hands out the
    // backup it held.
    cluster.kill("n1");
    await().atMost(Duration.ofSeconds(5)).until(() -> {
      n3.engine.acquire("s", "n1");
      return n3.engine.owns("s");
    });
    assertThat(n2.engine.backupOf("s")).as("handed out").isEmpty();
    assertThat(n2.engine.owns("s")).isFalse();

    // n1 comes back empty; once n3's buddy holds the session and the view has settled, a request on n2 names n1.
    cluster.crash("n1");
    cluster.start("n1");
    await().atMost(Duration.ofSeconds(5)).until(() -> cluster.node("n4").engine.backupOf("s").isPresent());
    cluster.clock.advance(Duration.ofSeconds(2)); // past the settle time of the last view change: the one hop concludes

    Acquisition acquisition = n2.engine.acquire("s", "n1");

    assertThat(acquisition).as("not 'no such session': n3 owns it").isNotEqualTo(Acquisition.NOWHERE);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      Acquisition again = n2.engine.acquire("s", "n1");
      assertThat(again).isNotEqualTo(Acquisition.NOWHERE);
      assertThat(again.snapshot()).as(again.toString()).isPresent();
    });
    assertThat(n2.engine.promote("s").map(n2::decode)).hasValue(Map.of("seq", 5));
  }

  /**
   * The memory of a backup handed out names the epoch it was handed at: an answer that comes after the request gave up,
   * at a later epoch (this node asked the session's next owner for it), is installed as any late answer is, not
   * dropped as older than what this node let go of (review of 11.3.39).
   */
  @Test
  void lateAnswerAtALaterEpoch_onTheMemberThatHandedItsBackupOut_isInstalled() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(50))
        .ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(2)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");
    cluster.kill("n1");
    await().atMost(Duration.ofSeconds(5)).until(() -> {
      n3.engine.acquire("s", "n1");
      return n3.engine.owns("s");
    });
    assertThat(n2.engine.owns("s")).isFalse();
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.stats().handoversUndecided() == 0);

    // n2 asks n3, the owner now, for the session; n3's answer, at epoch 3, comes after n2 gave up waiting.
    cluster.network.honourRequestTimeouts();
    cluster.network.setWireHook(message -> {
      if (message instanceof io.tandem.core.wire.Message.FullSession answer && answer.snapshot().id().equals("s")
          && answer.snapshot().epoch() == 3) {
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return cluster.throughTheCodec(message);
    });
    Acquisition first = n2.engine.acquire("s", "n3");
    assertThat(first.snapshot()).as("answered after the request gave up").isEmpty();

    await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
        assertThat(n2.engine.owns("s")).as("the late answer, installed").isTrue());
    assertThat(n3.engine.owns("s")).isFalse();
  }
}
