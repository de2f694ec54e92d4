package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node restarted under its id and address before any failure detector noticed (a crashed Tomcat brought back at
 * once by its service manager): the others' views never show it missing, only as another run of it. It comes back
 * with none of the sessions it owned and none of the copies it held (docs/protocol.md 11.3.5).
 *
 * <p>Ring n1 -> n2 -> n3 -> n1. The maintenance tick runs only when asked: what happens here is the view's doing.
 */
class RestartedInPlaceTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void ownerRestartedFasterThanTheFailureDetector_itsBuddyAdoptsTheSessionsOfItsFormerRun() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1)).build(),
        "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    EngineCluster.Node n2 = cluster.node("n2");
    assertThat(n2.backup("s")).contains(Map.of("seq", 1));

    EngineCluster.Node again = cluster.restartInPlace("n1");

    // Left as a backup of a live "n1", it would be nobody's session: one more failure (n2's) and it was gone.
    await().atMost(AWAIT).until(() -> n2.engine.owns("s"));
    assertThat(again.engine.owns("s")).isFalse();
    assertThat(n2.engine.promote("s").map(n2::decode)).contains(Map.of("seq", 1));
    await().atMost(AWAIT).until(() -> cluster.node("n3").backup("s").isPresent());
  }

  @Test
  void buddyRestartedFasterThanTheFailureDetector_theOwnerSendsItEverySessionAgain() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1)).build(),
        "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s")).isPresent();

    EngineCluster.Node again = cluster.restartInPlace("n2");

    // Counted protected on the former run, an idle session had no backup anywhere until its next write.
    await().atMost(AWAIT).until(() -> again.backup("s").isPresent());
    assertThat(again.backup("s")).contains(Map.of("seq", 1));
    assertThat(n1.engine.sessionsWithoutBackup()).isZero();
  }
}
