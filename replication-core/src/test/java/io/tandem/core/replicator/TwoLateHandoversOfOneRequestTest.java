package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 398513 (docs/protocol.md 11.3.40): one request's hop asked the holder and the holder's buddy, and both
 * answered after it had given up. The holder handed the session over at its epoch + 1; its buddy, which had taken its
 * copy over when the holder died (and acknowledged a write to it), handed it over at the epoch after that. The
 * requester installed the first answer and dropped the second as "older"; the buddy, hearing that the requester owned
 * the session at the buddy's own epoch, let go of its copy, and the write was lost. A later copy handed over late
 * replaces one installed here and never served. Here n1 holds the session, n2 is its buddy, and n4 asks.
 */
class TwoLateHandoversOfOneRequestTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void laterCopyHandedOverLate_replacesTheOneInstalledAndNeverServed() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(50))
        .ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(3)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    NodeId requester = new NodeId("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");
    cluster.network.honourRequestTimeouts(); // a Migrate's answer is awaited its whole ack + settle timeout

    CountDownLatch holdersAnswerMayGo = new CountDownLatch(1);
    CountDownLatch askOfTheBuddyMayGo = new CountDownLatch(1);
    CountDownLatch buddyAsked = new CountDownLatch(1);
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate release && release.reason() == Message.InvalidateReason.RELEASED
          && release.epoch() == 2) {
        // n4's release of n1 (the holder) once its buddy has the session: lost, so n1, about to die, never released
        // its own buddy n2, which keeps n1's copy as the holder died before its handover was done.
        throw new IllegalStateException("lost");
      }
      if (message instanceof Message.BulkTransfer bulk && bulk.purpose() == Message.BulkTransfer.Purpose.BACKUP
          && askOfTheBuddyMayGo.getCount() > 0) {
        throw new IllegalStateException("n4's copy for its next buddy, n2, is slow"); // n2 holds n1's copy meanwhile
      }
      if (message instanceof Message.FullSession answer && answer.snapshot().id().equals("s")
          && answer.snapshot().epoch() == 2 && holdersAnswerMayGo.getCount() > 0) {
        awaitQuietly(holdersAnswerMayGo); // n1's answer, held past the requester's wait
      } else if (message instanceof Message.Migrate ask && ask.requester().equals(requester)
          && buddyAsked.getCount() == 0) {
        awaitQuietly(askOfTheBuddyMayGo); // the hop's second ask, to n2: it reaches n2 once n2 adopted the session
      } else if (message instanceof Message.Migrate ask && ask.requester().equals(requester)) {
        buddyAsked.countDown(); // the first ask, to n1, goes at once
      }
      return cluster.throughTheCodec(message);
    });

    CompletableFuture<Acquisition> asked = CompletableFuture.supplyAsync(() -> n4.engine.acquire("s", "n1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> !n1.engine.owns("s")); // n1 handed it out at epoch 2
    Thread.sleep(400); // past the requester's wait for n1: it asks n2 next, and that ask is held
    holdersAnswerMayGo.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> n4.engine.owns("s")); // n1's late answer, installed
    // n1 dies, and n2 takes its copy over at epoch 2 (as a request on n2 does once it saw n1 die, before the
    // requester's release of that copy, slow, reaches it).
    cluster.kill("n1");
    assertThat(n2.engine.promote("s")).hasValueSatisfying(taken -> assertThat(taken.epoch()).isEqualTo(2));
    askOfTheBuddyMayGo.countDown(); // n2 hands over what it owns, at epoch 3, after the requester gave up on it
    asked.get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(n2.engine.owns("s")).isFalse();
      assertThat(n4.engine.owns("s")).isTrue();
      assertThat(n4.engine.promote("s").orElseThrow().epoch()).as("the copy n2 handed over, with what it acknowledged")
          .isEqualTo(3);
    });
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

