package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 134448 (docs/protocol.md 11.3.31): the first request a node ran on waking from a pause created a
 * session, which its buddy acknowledged; a moment later the buddy's view dropped the node (the pause had been long
 * enough) and it adopted the copy at the next epoch, where others wrote. The node, in quarantine but holding a
 * session that was no suspect (it did not exist at the pause), served reads of its own copy. In quarantine every owned
 * session is now served on a lease only a holder's confirmation gives.
 */
class SessionCreatedAfterAPauseTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void sessionCreatedInQuarantine_isNotServedOnceItsBuddyOwnsIt() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);

    cluster.freeze("n1", Duration.ofSeconds(3));
    n1.engine.admit("s"); // the pause is seen: n1 is in quarantine, "s" a suspect
    n1.create("t");
    assertThat(n1.request("t", (s, reads) -> s.setAttribute("seq", 7))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.engine.backupOf("t")).isPresent();

    // The membership drops n1 a moment after n2 acknowledged the new session; n1's transport still works.
    cluster.cluster.suspend(new NodeId("n1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.members().size() == 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.owns("t"));

    assertThat(n1.engine.admit("t")).as("n1 serves no request of a session its buddy owns now")
        .isNotEqualTo(Admission.ADMITTED);
  }
}
