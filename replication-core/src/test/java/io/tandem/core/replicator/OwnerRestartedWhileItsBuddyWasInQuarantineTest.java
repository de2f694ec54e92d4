package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 89564 (docs/protocol.md 11.3.26): n2 was paused, and in quarantine saw its owner n1 leave the view and
 * come back under another run (restarted without its sessions). The adoption of a departed owner's copies waits for
 * the quarantine to lift, and then took only owners absent from the view: n1 was present, so n2 kept the only copy of
 * n1's session and nobody owned it until a request migrated it from there. Owners that left or restarted during the
 * quarantine and are back under another run are adopted from when it lifts.
 */
class OwnerRestartedWhileItsBuddyWasInQuarantineTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void ownerRestartedWhileItsBuddyWasInQuarantine_itsCopiesAreAdoptedWhenTheQuarantineLifts() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .maintenanceInterval(Duration.ofMillis(200)).build(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.engine.backupOf("s")).isPresent();

    cluster.freeze("n2", Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.stats().pausesDetected() == 1);
    cluster.crash("n1");
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.members().size() == 1);
    cluster.restartInPlace("n1"); // its next run, without the sessions of the last
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.members().size() == 2);

    await().atMost(Duration.ofSeconds(20)).until(() -> n2.engine.owns("s"));
    assertThat(n2.engine.promote("s").map(n2::decode)).hasValue(java.util.Map.of("seq", 5));
  }
}
