package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The hang-owner drill through Apache httpd (docs/protocol.md 11.3.42): after the frozen node woke, the membership
 * took the two running nodes for dead, one view each of itself alone. A write on n3 whose copy was on its way to its
 * buddy when its view shrank failed to reach it, and, the view now saying n3 was alone, was answered 200 as kept
 * alone, although the same view change had put n3 in quarantine (a dropped member was still sending it traffic: it
 * may be the cut-off side). At the merge n3's copy lost to its buddy's, and so did the write ("versions gone back 1").
 * A node in quarantine is not alone for a write: it waits for a buddy, and answers 503 if none comes.
 */
class WriteAloneInQuarantineTest {
  @AutoClose
  private EngineCluster cluster;

  @Test
  void writeOnItsWayWhenTheViewMisjudgedBothMembersDead_isNotAcknowledgedAlone() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofMillis(500)).maintenanceInterval(Duration.ofMillis(50)).build(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s1");
    n2.create("s2");
    assertThat(n1.request("s1", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.request("s2", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);

    // n1's next write is on the wire to n2 when the membership takes each node for the other's only survivor.
    CountDownLatch onTheWire = new CountDownLatch(1);
    CountDownLatch viewsChanged = new CountDownLatch(1);
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.SessionDelta delta && delta.sessionId().equals("s1")
          && onTheWire.getCount() > 0) {
        onTheWire.countDown();
        try {
          viewsChanged.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("n2 is no member of n1's view any more"); // as Grizzly refuses it then
      }
      return cluster.throughTheCodec(message);
    });
    CompletableFuture<FlushOutcome> write =
        CompletableFuture.supplyAsync(() -> n1.request("s1", (s, reads) -> s.setAttribute("seq", 2)));
    assertThat(onTheWire.await(5, TimeUnit.SECONDS)).isTrue();
    cluster.cluster.isolateEach();
    await().atMost(Duration.ofSeconds(5)).until(() -> n1.engine.members().size() == 1);
    viewsChanged.countDown();

    assertThat(write.get(10, TimeUnit.SECONDS)).as("a write n1 could only acknowledge alone, which the merge may lose")
        .isNotEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(n1.engine.stats().misjudgedViews()).isEqualTo(1);
  }
}
