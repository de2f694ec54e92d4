package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The partition drill (`MODIFIED_SESSION`, `SYNC`, through HAProxy; docs/protocol.md 11.3.46): n1, cut off, adopted
 * n3's session at epoch 2 from its copy, and put n3 in its release ledger; n3 went on serving it with n2 as its buddy
 * (200s n1 never saw). n1 then went into quarantine, and, confirming the session after the heal, gave way to n3, the
 * owner at the older epoch. But the release stayed in the ledger, and the next tick sent it: n3, told the session was
 * owned at epoch 2, fenced its copy, released n2's, and the session was gone with 364 acknowledged writes. A yield
 * forgets the releases, and a session unconfirmed since a pause releases nobody.
 */
class YieldForgetsItsReleasesTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void adoptedThenYieldedInQuarantine_doesNotReleaseTheOwnerItYieldedTo() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .ackTimeout(Duration.ofMillis(500)).maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    NodeId one = new NodeId("n1");
    NodeId two = new NodeId("n2");
    NodeId three = new NodeId("n3");
    cluster.ownedByN3WithItsCopyOnN1("s");

    // n1 is cut off: it takes n3 for gone and adopts its session; n2 and n3 take n1 for gone.
    cluster.network.partition(Set.of(one), Set.of(two, three));
    cluster.cluster.split(Map.of(one, Set.of(one, two), two, Set.of(two, three), three, Set.of(two, three)));
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.owns("s"));
    await().atMost(Duration.ofSeconds(10)).until(() -> n3.engine.buddy().map(two::equals).orElse(false)
        && n2.engine.backupOf("s").isPresent());
    assertThat(n3.request("s", (s, reads) -> s.setAttribute("seq", 2))).as("acknowledged by n2").isEqualTo(FlushOutcome.REPLICATED);

    // n1 was paused meanwhile (quarantine: its copy is unconfirmed), then everything heals.
    cluster.freeze("n1", Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.stats().pausesDetected() >= 1);
    cluster.network.heal();
    cluster.cluster.reunite();

    await("n1 gave way to n3").atMost(Duration.ofSeconds(20)).until(() -> !n1.engine.owns("s"));
    Thread.sleep(1_000); // ten maintenance ticks: a release left in n1's ledger goes out within them
    assertThat(n3.engine.owns("s")).as("n3, the owner n1 gave way to, fenced by n1's release").isTrue();
    assertThat(n3.request("s", (s, reads) -> s.setAttribute("seq", 3))).as("n3 serves it on, protected")
        .isEqualTo(FlushOutcome.REPLICATED);
  }
}
