package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fresh-clone CI run of {@code DistributionKillIT} (two Tomcat processes, the owner killed with SIGKILL) found the
 * survivor serving an empty session in place of one whose ten writes had all been acknowledged. A buddy in quarantine
 * (it had stalled past the pause threshold) promotes no backup without asking every member first; the killed owner was
 * already out of the view it asks (its redial was refused), nobody else knew the session, and "nobody knows it" became
 * "it exists nowhere", although the only copy was this node's own backup. Now that copy is taken over when its owner
 * was seen dying, and the session is unavailable (503), never absent, while the owner may be alive beyond a cut.
 *
 * <p>Two nodes: n1 owns the session, n2 holds its copy.
 */
class QuarantinedBuddyOfAKilledOwnerTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final Duration STALL = Duration.ofSeconds(2);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** n1 owns "s" with ten acknowledged writes; n2, its buddy, stalled past the pause threshold and noticed it. */
  private EngineCluster start() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).pauseThreshold(Duration.ofMillis(1500)).build(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    for (int i = 0; i < 10; i++) {
      int value = i;
      assertThat(n1.request("s", (s, reads) -> s.setAttribute("k" + value, "v" + value))).isEqualTo(FlushOutcome.REPLICATED);
    }
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s").map(b -> b.size() == 10).orElse(false));
    cluster.freeze("n2", STALL);
    cluster.node("n2").engine.admit("s-none"); // the stall is noticed: quarantine
    assertThat(cluster.node("n2").engine.stats().pausesDetected()).isEqualTo(1);
    return cluster;
  }

  @Test
  void ownerKilledWhileTheViewStillListsIt_itsBackupIsTakenOver_notReplacedByANewSession() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n2 = c.node("n2");

    c.kill("n1");
    await().atMost(AWAIT).until(() -> n2.engine.buddy().isEmpty());
    Acquisition acquired = n2.engine.acquire("s", "n1");

    assertThat(acquired.unavailable()).isEmpty();
    assertThat(acquired.snapshot()).as("the only copy, not a new session").hasValueSatisfying(s -> {
      assertThat(s.epoch()).isEqualTo(2);
      assertThat(n2.decode(s)).hasSize(10).containsEntry("k9", "v9");
    });
    assertThat(n2.engine.owns("s")).isTrue();
  }

  @Test
  void ownerKilledAndThenDroppedByTheView_itsBackupIsStillTakenOver() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n2 = c.node("n2");

    c.kill("n1");
    await().atMost(AWAIT).until(() -> n2.engine.buddy().isEmpty());
    c.cluster.crash(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));

    assertThat(n2.engine.admit("s")).as("alone, but holding the copy of an owner it saw die").isEqualTo(Admission.FETCH_FIRST);
    assertThat(n2.engine.admit("s-other").refusal()).as("the last survivor looks any other id up as usual").isEmpty();
    Acquisition acquired = n2.engine.acquire("s", "n1");
    assertThat(acquired.unavailable()).isEmpty();
    assertThat(acquired.snapshot()).hasValueSatisfying(s -> assertThat(n2.decode(s)).hasSize(10));
  }

  /**
   * The same in real Tomcat when the buddy stalled past the membership's heartbeat timeout: the owner dropped it from
   * its view and closed their connection, so when the owner was killed nothing refused a redial, and the buddy's view
   * dropped the owner first. A quarantined node dials the owners of its backups that left the view; a refusal there is
   * a death, seen late.
   */
  @Test
  void ownerDroppedByTheViewAndThenKilled_isDialled_andOnItsRefusalItsBackupIsTakenOver() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n2 = c.node("n2");
    c.cluster.crash(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));
    c.kill("n1"); // too late for a refusal on a connection: the view had dropped it

    assertThat(n2.engine.admit("s").refusal()).as("not known dead yet").isPresent();
    n2.engine.runMaintenance();

    assertThat(n2.engine.admit("s")).isEqualTo(Admission.FETCH_FIRST);
    Acquisition acquired = n2.engine.acquire("s", "n1");
    assertThat(acquired.unavailable()).isEmpty();
    assertThat(acquired.snapshot()).hasValueSatisfying(s -> assertThat(n2.decode(s)).hasSize(10));
  }

  @Test
  void ownerMissingFromTheViewButNotSeenDying_isUnavailable_neverAbsent() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n2 = c.node("n2");

    c.crash("n1"); // the view drops it, no refusal: from n2, which was stalled, this may be a cut, not a death
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));
    n2.engine.runMaintenance(); // dialled: no answer either way

    assertThat(n2.engine.admit("s").refusal()).as("alone, and nothing says it is not the one cut off").isPresent();
    Acquisition acquired = n2.engine.acquire("s", "n1");
    assertThat(acquired.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("held only here", "n1"));
    assertThat(n2.engine.owns("s")).isFalse();
    assertThat(n2.backup("s")).as("kept for when the membership settles").isPresent();
  }
}
