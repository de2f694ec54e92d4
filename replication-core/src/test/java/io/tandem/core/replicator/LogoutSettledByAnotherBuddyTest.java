package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The hang-owner drill through HAProxy, in ASYNC (docs/protocol.md 11.3.43): n3 owned the session and its buddy n1 was
 * frozen; the logout's invalidation to n1 went unanswered. When n3's view dropped n1, the tick sent the invalidation
 * to the new buddy n2, which held no copy and acknowledged, and that settled it: n1 was never told, and kept the copy
 * of an ended session. Back in the view (under the same run), n1 was n3's buddy again with that copy, and adopted it,
 * a live session, the day n3 died. The invalidation is settled only by the member that held the copy.
 */
class LogoutSettledByAnotherBuddyTest {
  @AutoClose
  private EngineCluster cluster;

  @Test
  void invalidationAcknowledgedByTheNewBuddy_isSentOnToTheFrozenBuddyThatHeldTheCopy() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofSeconds(1))
        .settleTimeout(Duration.ofMillis(500)).maintenanceInterval(Duration.ofMillis(50)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    NodeId one = new NodeId("n1");
    NodeId three = new NodeId("n3");
    cluster.ownedByN3WithItsCopyOnN1("s");

    // n1 freezes: the logout's invalidation to it is lost (its connection closed as the view dropped it).
    cluster.network.dropNext(three, one, 1);
    var logout = n3.engine.invalidated("s");
    cluster.cluster.suspend(one);
    await().atMost(Duration.ofSeconds(5)).until(() -> n3.engine.buddy().map(new NodeId("n2")::equals).orElse(false));
    assertThat(logout.get(5, TimeUnit.SECONDS)).as("acknowledged by the new buddy, as a write re-sent to it is")
        .isEqualTo(FlushOutcome.REPLICATED);

    // n1 runs again, under the same run, and is n3's buddy once more.
    cluster.cluster.thaw(one);
    await().atMost(Duration.ofSeconds(5)).until(() -> n3.engine.buddy().map(one::equals).orElse(false));
    await("n1's copy of the ended session released").atMost(Duration.ofSeconds(5))
        .until(() -> n1.engine.backupOf("s").isEmpty());

    // n3 dies: n1, its buddy and heir, must not bring the session back.
    cluster.crash("n3");
    await().atMost(Duration.ofSeconds(5)).until(() -> !n1.engine.members().contains(three));
    assertThat(n1.engine.owns("s")).as("the logged-out session adopted by n1").isFalse();
    assertThat(n2.engine.owns("s")).isFalse();
  }
}
