package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import io.tandem.core.testing.InMemoryTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 328510 (docs/protocol.md 11.3.37): n4 held n3's copy of a session and asked n3 for it; n3 had handed it
 * to n2 and was leaving. By the time n3 was gone, n4 had become n2's buddy and held n2's copy in place of n3's: n4
 * took that over as if it were the departed owner's, a second owner beside n2, and n2 went on serving reads of the
 * session after a logout on n4 was answered 200. A request takes over only the copy its decision was about: one a
 * live member sent since is that member's, asked for, never claimed.
 */
class BackupChangingOwnerWhileItsOwnerIsAskedTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void copyReplacedByALiveMembersWhileItsDeadOwnerWasAsked_isNotClaimed() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(100))
        .ackTimeout(Duration.ofSeconds(2)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    EngineCluster.Node n4 = cluster.node("n4");
    NodeId n1 = new NodeId("n1");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n4 takes the session over from n1; its release of n2's copy is lost for now, so n2 still holds n1's copy.
    AtomicBoolean losingReleases = new AtomicBoolean(true);
    CountDownLatch n1DiedUnderTheAsk = new CountDownLatch(1);
    cluster.network.setWireHook(message -> {
      if (losingReleases.get() && message instanceof Message.Invalidate release && release.sessionId().equals("s")
          && release.reason() == Message.InvalidateReason.RELEASED) {
        throw new IllegalStateException("the release is lost");
      }
      if (message instanceof Message.Migrate ask && ask.requester().equals(new NodeId("n2"))
          && n1DiedUnderTheAsk.getCount() > 0) {
        // n2 asks n1, its copy's owner: n1's process dies on the way. Its closed connections reach the members one
        // after another (below).
        cluster.network.crash(n1);
        cluster.network.diedUnseen(n1);
        n1DiedUnderTheAsk.countDown();
        throw new IllegalStateException("n1 died before it read the ask");
      }
      return cluster.throughTheCodec(message);
    });
    assertThat(n4.engine.acquire("s", "n1").snapshot()).as("its release is unanswered").isEmpty();
    assertThat(n4.engine.owns("s")).isTrue();
    long n4sEpoch = n4.engine.promote("s").orElseThrow().epoch();
    assertThat(n2.engine.backupOf("s")).as("n1's copy, its release lost").isPresent();

    CompletableFuture<Acquisition> asked = CompletableFuture.supplyAsync(() -> n2.engine.acquire("s", "n1"));
    assertThat(n1DiedUnderTheAsk.await(5, TimeUnit.SECONDS)).isTrue();
    // n4 hears of it first: n2 is its buddy now, and is sent n4's copy in place of n1's before n2 hears of it.
    ((InMemoryTransport) n4.transport).peerRefused(n1);
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.backupOf("s")
        .map(copy -> copy.epoch() == n4sEpoch).orElse(false));
    ((InMemoryTransport) n2.transport).peerRefused(n1);
    ((InMemoryTransport) n3.transport).peerRefused(n1);
    Acquisition acquisition = asked.get(10, TimeUnit.SECONDS);

    assertThat(n2.engine.owns("s")).as("n2 claimed n4's copy beside n4: " + acquisition).isFalse();
    assertThat(acquisition.snapshot()).isEmpty();
    assertThat(n4.engine.owns("s")).isTrue();
  }
}
