package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a logout answered 200 while the session lived on (the simulation, seed 1975 on 3 nodes: an
 * id served after its logout). The owner was paused; its buddy dropped it from its view and adopted the session at the
 * next epoch; the owner, resumed and not fenced yet, ended the session and sent the invalidation, which the buddy
 * refused with {@code STALE_EPOCH} (it owns the session now). Every answer but a refusal settled an invalidation as
 * acknowledged, so the logout was confirmed, and the new owner served the id to the next request. An invalidation
 * answered {@code STALE_EPOCH} is {@code FENCED}: the client gets a 503, an unknown outcome. So is one that finds the
 * session fenced already (the new owner's word came first; {@code NOT_OWNED}, a 200, before: the first fresh-clone run
 * of this test met that order).
 */
class LogoutAfterATakeoverTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @AutoClose
  private EngineCluster cluster;

  @Test
  void aLogoutAtAnOwnerWhoseBuddyTookTheSessionOver_isNotConfirmed() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s1");
    assertThat(n1.request("s1", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    await().atMost(AWAIT).until(() -> n2.backup("s1").isPresent());

    // n2 takes its backup over at the next epoch, as a buddy does when its view dropped the owner.
    assertThat(n2.engine.promote("s1")).isPresent();

    FlushOutcome logout = n1.engine.ended(n1.sessions.get("s1").handle(), true).get(5, TimeUnit.SECONDS);

    assertThat(logout).isEqualTo(FlushOutcome.FENCED);
    assertThat(logout.isConfirmed()).as("a 200 for a logout of a session another node serves on").isFalse();
    assertThat(n2.engine.owns("s1")).isTrue();
  }
}
