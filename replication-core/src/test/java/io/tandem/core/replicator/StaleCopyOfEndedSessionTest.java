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
 * Regression test for a logged-out session that came back (found by the hang-owner drill through Apache httpd): the
 * owner's buddy was frozen past failure detection while holding its copy; the owner re-protected the session on
 * the next buddy, the user logged out there, and the frozen node came back still holding its copy. Asked for the
 * session later, the owner took that copy back in from it (the holder hands a backup to its own owner), and the
 * invalidated session was served again.
 *
 * <p>A session ended on a node is remembered there as ended for the tombstone's lifetime: the node never installs a
 * copy of it at the epoch it ended or older, and tells a holder who asks that it ended, so the holder drops its copy.
 */
class StaleCopyOfEndedSessionTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @AutoClose
  private EngineCluster cluster;

  /** n3 owns s3; n1, its buddy, is frozen with a copy while n3 ends s3 with n2 as buddy, then comes back. */
  private EngineCluster loggedOutWhileTheFormerBuddyWasFrozen() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3");
    EngineCluster.Node n3 = cluster.node("n3");
    n3.create("s3");
    n3.request("s3", (s, reads) -> s.setAttribute("a", 1)); // n3's buddy is n1
    await().atMost(AWAIT).until(() -> cluster.node("n1").backup("s3").isPresent());

    cluster.cluster.suspend(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> n3.engine.buddy().map(b -> b.value().equals("n2")).orElse(false));
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s3").isPresent());
    assertThat(n3.engine.invalidated("s3").get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s3")).isEmpty();

    cluster.cluster.thaw(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> n3.engine.buddy().map(b -> b.value().equals("n1")).orElse(false)
        && cluster.node("n1").engine.members().size() == 3);
    assertThat(cluster.node("n1").backup("s3")).as("the frozen node's stale copy").isPresent();
    return cluster;
  }

  @Test
  void ownerAskedForTheSessionItEnded_doesNotTakeTheFormerBuddysCopyBackIn() throws Exception {
    EngineCluster c = loggedOutWhileTheFormerBuddyWasFrozen();

    assertThat(c.node("n3").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
    assertThat(c.node("n3").engine.owns("s3")).isFalse();
    assertThat(c.node("n1").backup("s3")).as("the stale copy is gone too").isEmpty();
    assertThat(c.node("n1").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
    assertThat(c.node("n2").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
  }

  @Test
  void formerBuddyAskedForTheSession_learnsItEndedAndDropsItsCopy() throws Exception {
    EngineCluster c = loggedOutWhileTheFormerBuddyWasFrozen();

    assertThat(c.node("n1").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
    assertThat(c.node("n1").engine.owns("s3")).isFalse();
    assertThat(c.node("n1").backup("s3")).as("dropped once the owner said it ended").isEmpty();
    assertThat(c.node("n3").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
    assertThat(c.node("n2").engine.acquire("s3", "n3")).isEqualTo(Acquisition.NOWHERE);
  }
}
