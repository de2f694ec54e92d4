package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 103144 and 11.3.13's seeds (docs/protocol.md): an owner back from a pause confirmed its session with
 * every member (its buddy held it at its epoch); a moment later the buddy's view dropped the owner and it adopted the
 * session at the next epoch, and others wrote there, while the owner served reads of its older copy (reads need no
 * buddy) until its next write was refused. A confirmation now lasts a lease (the pause threshold): the buddy that gave
 * it does not adopt the copy before the lease ran out, and the owner confirms again once it did.
 */
class ReadLeaseAfterAPauseTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void ownerConfirmedAfterAPause_isNeverServingWhileItsBuddyOwnsTheSession() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.engine.backupOf("s")).isPresent();

    cluster.freeze("n1", Duration.ofSeconds(3));
    assertThat(n1.engine.admit("s")).as("confirmed by n2's copy at n1's epoch").isEqualTo(Admission.ADMITTED);

    // The membership drops n1 a moment after n2 confirmed its copy to it; n1's transport still works.
    cluster.cluster.suspend(new NodeId("n1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.members().size() == 2);

    assertThat(n2.engine.owns("s")).as("n2 defers the adoption while n1's confirmation lasts").isFalse();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    boolean n2Owns = false;
    while (!n2Owns && System.nanoTime() < deadline) {
      n2Owns = n2.engine.owns("s");
      Admission admission = n1.engine.admit("s");
      if (n2Owns) {
        assertThat(admission).as("n1 serves no request once n2 owns the session").isNotEqualTo(Admission.ADMITTED);
      }
      Thread.sleep(20);
    }
    assertThat(n2Owns).as("n2 adopts once n1's confirmation ran out").isTrue();
    assertThat(n1.engine.admit("s")).as("n1 confirms again and finds the session moved on")
        .isEqualTo(Admission.FETCH_FIRST);
    assertThat(n1.engine.owns("s")).isFalse();
  }
}
