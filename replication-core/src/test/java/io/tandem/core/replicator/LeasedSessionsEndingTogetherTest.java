package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session that ends forgets its lease (docs/protocol.md 11.3.13) under its own lock; the lease map was searched by
 * id, which took every leased session's lock in turn: two leased sessions ending at once (a logout and an expiry),
 * each under its own lock, waited for each other for ever. Found by review while 11.3.31 gave every session in
 * quarantine a lease. The lease now goes by the session itself.
 */
class LeasedSessionsEndingTogetherTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void sessionEnding_doesNotWaitForTheLockOfAnotherLeasedSession() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMillis(1500))
        .maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    for (String id : new String[] {"s", "t"}) {
      n1.create(id);
      assertThat(n1.request(id, (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    }
    cluster.freeze("n1", Duration.ofSeconds(3));
    assertThat(n1.engine.admit("s")).as("s confirmed, on a lease").isEqualTo(Admission.ADMITTED);
    assertThat(n1.engine.admit("t")).as("t confirmed, on a lease").isEqualTo(Admission.ADMITTED);

    // Another thread holds s's lock (as a request ending s would) while t ends.
    OwnedSession s = n1.sessions.get("s").handle();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (s) {
        holding.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    holder.start();
    try {
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<CompletableFuture<FlushOutcome>> ending =
          CompletableFuture.supplyAsync(() -> n1.engine.invalidated("t"));
      assertThat(ending.get(10, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    } finally {
      release.countDown();
      holder.join();
    }
  }
}
