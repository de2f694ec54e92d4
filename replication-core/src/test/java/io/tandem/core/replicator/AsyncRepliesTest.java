package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ASYNC replies are recorded without waiting for a session lock on the thread that delivers them. */
class AsyncRepliesTest {
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Regression: the reply of an ASYNC update was recorded on the transport's thread under the session's lock, so a
   * request holding that lock (in the replication benchmark, a writer; under a CPU cap, any request whose thread was
   * descheduled) held up every reply behind it, and on a node that is also a buddy every request too.
   */
  @Test
  void asyncAckWaitedForTheSessionLock_repliesOfOtherSessionsAreStillRecorded() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().mode(ReplicationMode.ASYNC)
        .ackTimeout(Duration.ofSeconds(5)).maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("a");
    owner.create("b");
    owner.request("a", (s, reads) -> s.setAttribute("v", 1));
    owner.request("b", (s, reads) -> s.setAttribute("v", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    long acks = owner.engine.stats().acks();

    OwnedSession a = owner.sessions.get("a").handle();
    synchronized (a) { // a request of session a holds its lock for as long as the replies below take
      owner.request("a", (s, reads) -> s.setAttribute("v", 2));
      owner.request("b", (s, reads) -> s.setAttribute("v", 2));
      await().atMost(Duration.ofSeconds(10)).until(() -> owner.engine.stats().acks() == acks + 2);
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(cluster.node("n2").backup("a")).contains(Map.of("v", 2));
      assertThat(cluster.node("n2").backup("b")).contains(Map.of("v", 2));
    });
  }
}
