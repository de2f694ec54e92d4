package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/protocol.md 8.5: in quarantine the maintenance tick dialled each departed owner of a backup held here and
 * waited for the verdict, up to the connect timeout per silent member (a blackholed host answers nothing), and the
 * tick's every other task (state transfer, touches, releases, expiry) waited with it. The dial's verdict now arrives
 * on its own, and counts from the next tick.
 */
class SilentDepartedMemberDuringQuarantineTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void tickInQuarantine_doesNotWaitForTheDialOfADepartedOwner_andItsVerdictCountsOnceItCame() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).pauseThreshold(Duration.ofMillis(1500)).build(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("theirs");
    n1.request("theirs", (s, reads) -> s.setAttribute("user", "alice"));
    await().atMost(AWAIT).until(() -> n2.backup("theirs").isPresent());
    cluster.freeze("n2", Duration.ofSeconds(2));
    assertThat(n2.engine.admit("s-none").refusal()).isEmpty(); // the stall is noticed: quarantine
    CompletableFuture<Void> dialAnswers = new CompletableFuture<>();
    cluster.network.holdRefusalChecksUntil(dialAnswers); // as a dial to a silent host: no answer for a while

    cluster.network.crash(new NodeId("n1")); // cut off: silent, no refusal
    cluster.cluster.crash(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));
    cluster.network.diedUnseen(new NodeId("n1")); // then dead: only a dial can tell
    for (int second = 0; second < 6; second++) { // the membership settles, in steps below the threshold
      cluster.freeze("n2", Duration.ofMillis(1000));
      n2.engine.admit("s-none");
    }

    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> n2.engine.runMaintenance(), "the tick waited for the dial");
    assertThat(n2.engine.owns("theirs")).as("not the last survivor before the dial's verdict").isFalse();

    dialAnswers.complete(null); // n1 refuses: it died
    n2.engine.runMaintenance();
    assertThat(n2.engine.owns("theirs")).as("quarantine lifted, the dead owner's session adopted").isTrue();
  }
}
