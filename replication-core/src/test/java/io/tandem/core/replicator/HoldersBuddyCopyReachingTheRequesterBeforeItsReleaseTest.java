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
 * Soak seed 217382 (docs/protocol.md 11.3.32): n3 migrated a session in from n1 and released n1's buddy n2, but the
 * release was slow; n1 died, n2 adopted its copy at n3's epoch and sent it to its new buddy, n3. n3 refused it
 * ({@code STALE_EPOCH}: it owned the session at that epoch), which fenced n2; then the release's answer, refused at
 * that epoch, fenced n3 (11.3.27): nobody held the session. A copy from the holder's buddy at the epoch of a release
 * not yet answered can only be that buddy's adoption, which the release's answer would make the session's owner: the
 * requester gives way at once, while it has written nothing.
 */
class HoldersBuddyCopyReachingTheRequesterBeforeItsReleaseTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void holdersBuddyAdoptedAndSentItsCopyToTheRequester_theRequesterGivesWay_oneOwnerRemains() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n3 (whose buddy is n4) migrates the session from n1; its release of n2's copy waits on the wire while n1 dies,
    // n2 adopts its backup and protects it on its buddy once n1 is gone: n3. n3's answer to that copy, should it be a
    // refusal, is slow too: it reaches n2 after the release was answered, as in the seed.
    CountDownLatch releaseOnTheWire = new CountDownLatch(1);
    CountDownLatch copyAnswered = new CountDownLatch(1);
    CountDownLatch releaseAnswered = new CountDownLatch(1);
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate release && release.sessionId().equals("s")
          && release.reason() == Message.InvalidateReason.RELEASED && releaseOnTheWire.getCount() > 0) {
        releaseOnTheWire.countDown();
        awaitQuietly(copyAnswered); // within the requester transport's 400 ms
      } else if (refusedByN3(message) && copyAnswered.getCount() > 0) {
        copyAnswered.countDown();
        awaitQuietly(releaseAnswered);
      } else if (message instanceof Message.Nack refusal && refusal.detail().contains("owned by n2")) {
        releaseAnswered.countDown();
      }
      return cluster.throughTheCodec(message);
    });
    CompletableFuture<Acquisition> migrated = CompletableFuture.supplyAsync(() -> n3.engine.acquire("s", "n1"));
    assertThat(releaseOnTheWire.await(5, TimeUnit.SECONDS)).isTrue();
    cluster.crash("n1");
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> n2.engine.owns("s"));
    try {
      await().atMost(Duration.ofMillis(250)).pollInterval(Duration.ofMillis(1))
          .until(() -> n3.engine.backupOf("s").isPresent() || copyAnswered.getCount() == 0);
    } finally {
      copyAnswered.countDown();
    }

    Acquisition acquisition = migrated.get(10, TimeUnit.SECONDS);
    assertThat(n2.engine.owns("s")).as("n2, the heir, still owns the session").isTrue();
    assertThat(acquisition.snapshot()).as("n3 gave way to n2's copy at the same epoch").isEmpty();
    assertThat(n3.engine.owns("s")).isFalse();
    assertThat(n2.engine.promote("s").map(n2::decode)).hasValue(java.util.Map.of("seq", 5));
  }

  /** n3's refusal of n2's copy, alone or in the answer to a state transfer's batch. */
  private static boolean refusedByN3(Message message) {
    if (message instanceof Message.BulkRefusals bulk) {
      return bulk.refusals().stream().anyMatch(r -> refusedByN3(r.nack()));
    }
    return message instanceof Message.Nack refusal && refusal.reason() == Message.Nack.Reason.STALE_EPOCH
        && refusal.detail().contains("owned by n3");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(300, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
