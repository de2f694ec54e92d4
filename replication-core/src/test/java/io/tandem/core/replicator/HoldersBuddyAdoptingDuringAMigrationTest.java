package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 92349 (docs/protocol.md 11.3.27): n4 migrated a session in from its owner n1 at epoch 6 and released n1's
 * buddy n2, but the release was slow; n1 died before it arrived, and n2 adopted its copy at epoch 6 too. Two owners
 * at one epoch, each with its own buddy, each answering 200s the other never saw: a read on n2 came back older than
 * a write acknowledged on n4. The requester now waits for that release before it serves the session, and a release
 * refused at its epoch or above tells it the session is the other member's.
 */
class HoldersBuddyAdoptingDuringAMigrationTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void holdersBuddyAdoptedBeforeTheRequestersReleaseArrived_theRequesterLetsGo_oneOwnerRemains() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().build(),
        "n1", "n2", "n3", "n4", "n5");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n4 (whose buddy is n5) migrates the session from n1; its release of n2's copy waits on the wire while n1 dies
    // and n2 adopts its backup of n1's session, protected on n3.
    CountDownLatch releaseOnTheWire = new CountDownLatch(1);
    CountDownLatch adopted = new CountDownLatch(1);
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate release && release.sessionId().equals("s")
          && release.reason() == Message.InvalidateReason.RELEASED && releaseOnTheWire.getCount() > 0) {
        releaseOnTheWire.countDown();
        try {
          adopted.await(300, TimeUnit.MILLISECONDS); // within the requester transport's 400 ms
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return cluster.throughTheCodec(message);
    });
    CompletableFuture<Acquisition> migrated = CompletableFuture.supplyAsync(() -> n4.engine.acquire("s", "n1"));
    assertThat(releaseOnTheWire.await(5, TimeUnit.SECONDS)).isTrue();
    cluster.crash("n1");
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> n2.engine.owns("s"));
    adopted.countDown();

    Acquisition acquisition = migrated.get(10, TimeUnit.SECONDS);
    assertThat(acquisition.snapshot()).as("n4 lets go of the copy n2 owns at the same epoch").isEmpty();
    assertThat(acquisition.unavailable()).isPresent();
    assertThat(n4.engine.owns("s")).isFalse();
    assertThat(n2.engine.owns("s")).isTrue();
    assertThat(n2.engine.promote("s").map(n2::decode)).hasValue(java.util.Map.of("seq", 5));
  }
}
