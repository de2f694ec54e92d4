package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node that stops hands its sessions to its buddy; while the batch is on the way, the load balancer, finding the
 * node's connector closed, sends the user to a third member, which migrates the session from the leaving node. The
 * leaving node captured the session without fencing it, so it handed it over twice: to the third member at the next
 * epoch, and, when the batch arrived, to its buddy at that same epoch. Two owners at one epoch: the first to reach the
 * other is refused and fenced, and the 200s it gave are lost with it (a read-only review found the interleaving).
 *
 * <p>Three nodes, ring n1 -> n2 -> n3 -> n1: n1 owns the session and leaves, n2 is its buddy, n3 serves the user.
 */
class HandoffRacingAMigrationTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @RegisterExtension final EngineClusters clusters = new EngineClusters();
  private EngineCluster cluster;
  private final CountDownLatch handoffOnTheWire = new CountDownLatch(1);
  private final CountDownLatch deliverHandoff = new CountDownLatch(1);

  @AfterEach
  void letTheBatchGo() {
    deliverHandoff.countDown(); // before the extension closes the cluster: no channel thread left waiting
  }

  @Test
  void sessionMigratedWhileItsHandoffIsOnTheWay_hasOneOwner_andKeepsItsAcknowledgedValue() throws Exception {
    EngineCluster.Node n1 = startWithHandoffBatchesHeld();
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 7))).isEqualTo(FlushOutcome.REPLICATED);

    CompletableFuture<Integer> handedOff = CompletableFuture.supplyAsync(() -> n1.engine.handOff(Duration.ofSeconds(5)));
    assertThat(handoffOnTheWire.await(5, TimeUnit.SECONDS)).isTrue();
    Acquisition meanwhile = cluster.node("n3").engine.acquire("s", "n1");

    assertThat(meanwhile.snapshot()).as("on its way to n2: not n3's to take yet").isEmpty();
    assertThat(meanwhile.unavailable()).as("exists: retry, never a new session").isPresent();
    deliverHandoff.countDown();
    assertThat(handedOff.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(n1.engine.owns("s")).isFalse();
    await().atMost(AWAIT).until(() -> cluster.node("n2").engine.owns("s"));

    Acquisition retried = cluster.node("n3").engine.acquire("s", "n1");
    assertThat(retried.snapshot()).hasValueSatisfying(found -> assertThat(found.epoch()).isEqualTo(3));
    assertThat(cluster.node("n3").decode(retried.snapshot().get())).containsEntry("seq", 7);
    assertThat(cluster.node("n2").engine.owns("s")).as("one owner").isFalse();
  }

  @Test
  void sessionNoOtherMemberHoldsYet_askedForWhileItsHandoffIsOnTheWay_isUnavailable_neverANewSession() throws Exception {
    EngineCluster.Node n1 = startWithHandoffBatchesHeld();
    n1.create("s"); // its first request has not ended: n2 holds no copy yet
    cluster.clock.advance(Duration.ofMinutes(1)); // the view settled: "held nowhere" would be believed

    CompletableFuture<Integer> handedOff = CompletableFuture.supplyAsync(() -> n1.engine.handOff(Duration.ofSeconds(5)));
    assertThat(handoffOnTheWire.await(5, TimeUnit.SECONDS)).isTrue();
    Acquisition meanwhile = cluster.node("n3").engine.acquire("s", "n1");

    assertThat(meanwhile.unavailable()).as("n1 is handing it over: it exists").isPresent();
    deliverHandoff.countDown();
    assertThat(handedOff.get(5, TimeUnit.SECONDS)).isEqualTo(1);
  }

  /** Three nodes whose handoff batches wait on the wire until the test lets them through; returns n1. */
  private EngineCluster.Node startWithHandoffBatchesHeld() throws Exception {
    cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1)).build(),
        "n1", "n2", "n3");
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.BulkTransfer bulk && bulk.purpose() == Message.BulkTransfer.Purpose.HANDOFF) {
        handoffOnTheWire.countDown();
        try {
          deliverHandoff.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return cluster.throughTheCodec(message);
    });
    return cluster.node("n1");
  }
}
