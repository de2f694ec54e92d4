package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/protocol.md 11.3.43, its second half: a node back from a pause adopted, as the quarantine lifted, the copies it
 * had kept of an owner that restarted meanwhile, without asking anyone. While it was away the owner had moved its
 * buddy elsewhere, written on there (200), and ended a session there (a logout, 200): the copies kept through the
 * pause were older than the last 200 of one session and the other had ended. Adopted, one served a value older than its
 * last 200 and the other came back after its logout. Such copies are confirmed with every member first, as leftover
 * copies are: the member that adopted the one and recorded the end of the other answers, and both are dropped.
 */
class CopiesKeptThroughAQuarantineTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void ownerRestartedWhileItsFormerBuddyWasAway_theCopiesKeptThereAreConfirmedBeforeAdoption() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .ackTimeout(Duration.ofSeconds(1)).maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    NodeId one = new NodeId("n1");
    NodeId two = new NodeId("n2");
    cluster.ownedByN3WithItsCopyOnN1("written");
    cluster.ownedByN3WithItsCopyOnN1("loggedOut");

    // n1 stops running: it will find the pause when it runs again (quarantine), and the others drop it meanwhile.
    cluster.freeze("n1", Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.stats().pausesDetected() == 1);
    cluster.cluster.suspend(one);
    await().atMost(Duration.ofSeconds(5)).until(() -> n3.engine.buddy().map(two::equals).orElse(false));
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.backupOf("written").isPresent()
        && n2.engine.backupOf("loggedOut").isPresent());
    assertThat(n3.request("written", (s, reads) -> s.setAttribute("seq", 2))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n3.engine.invalidated("loggedOut").get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);

    // n3 restarts (without its sessions); n2 adopts "written" at seq=2. Then n1 runs again.
    cluster.restartInPlace("n3");
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.owns("written"));
    cluster.cluster.thaw(one);
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.members().size() == 3);

    await("n1's copies kept through its pause decided").atMost(Duration.ofSeconds(20))
        .until(() -> n1.engine.backupOf("written").isEmpty() && n1.engine.backupOf("loggedOut").isEmpty());
    assertThat(n1.engine.owns("loggedOut")).as("a session logged out (200) while n1 was away, adopted by n1").isFalse();
    assertThat(n1.engine.owns("written")).as("seq=1 adopted by n1 beside n2's seq=2").isFalse();
    assertThat(n2.engine.promote("written").map(n2::decode)).hasValue(java.util.Map.of("seq", 2));
  }
}
