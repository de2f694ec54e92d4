package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A buddy answered a whole re-protection batch with one acknowledgement even when it refused some of its sessions (a
 * copy the cluster had moved on from, or ended): the owner counted them protected, so {@code SessionsWithoutBackup}
 * and the drills' "two copies again" said yes while the buddy held nothing. The buddy now names each refusal, and the
 * owner treats it as it treats a refused update: a copy refused as ended or stale is fenced.
 *
 * <p>Three nodes, ring n1 -> n2 -> n3 -> n1: n1 owns the session, n2 holds its copy, and n3 becomes n1's buddy when
 * n2 dies.
 */
class ReprotectionRefusedByTheBuddyTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void sessionTheNewBuddyKnowsEnded_isFenced_notCountedProtected() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    n1.create("kept");
    n1.request("s", (s, reads) -> s.setAttribute("user", "alice"));
    n1.request("kept", (s, reads) -> s.setAttribute("user", "bob"));
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s").isPresent() && cluster.node("n2").backup("kept").isPresent());
    // n3 learnt that "s" ended at n1's epoch (as the buddy of an owner that ended it while n1 was cut off would have):
    // n1's copy is one the cluster has let go of.
    assertThat(cluster.node("n2").transport.request(new NodeId("n3"), new Message.Invalidate("s", 1, 1,
        Message.InvalidateReason.INVALIDATED)).get(5, TimeUnit.SECONDS)).isInstanceOf(Message.Ack.class);

    cluster.crash("n2"); // n1 re-protects both sessions to n3, in one batch

    await().atMost(AWAIT).until(() -> !n1.engine.owns("s"));
    assertThat(n1.listener.fenced).containsExactly("s");
    assertThat(n1.engine.owns("kept")).as("the rest of the batch is protected").isTrue();
    await().atMost(AWAIT).until(() -> n1.engine.sessionsWithoutBackup() == 0);
    assertThat(cluster.node("n3").backup("kept")).isPresent();
    assertThat(cluster.node("n3").backup("s")).isEmpty();
  }
}
