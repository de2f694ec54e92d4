package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A request for a session this node owns reaches the engine through the handle the container keeps: admission,
 * ownership, the flush, an id change and the end of the session look nothing up by id. A handle whose session
 * moved to another node is not owned, and never ends or re-keys the new owner's copy. Ring: n1 → n2 → n3 → n1.
 */
class OwnerRequestPathTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ReplicationConfig config(ReplicationMode mode) {
    return ReplicationConfig.builder().mode(mode).ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build();
  }

  @ParameterizedTest
  @EnumSource(ReplicationMode.class)
  void requestsOnAnOwnedSession_areAdmittedAndFlushedWithoutALookupById(ReplicationMode mode) throws Exception {
    cluster = new EngineCluster(config(mode), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    TestSession session = owner.create("s1");
    long before = cluster.lookups("n1");

    for (int request = 0; request < 3; request++) {
      assertThat(owner.engine.admit(session.handle())).isEqualTo(Admission.ADMITTED);
      assertThat(owner.engine.owns(session.handle())).isTrue();
      session.access(cluster.clock.millis() + request);
      session.setAttribute("a", request);
      assertThat(owner.engine.flush(session.handle(), Set.of()).isConfirmed()).isTrue();
    }
    session.access(cluster.clock.millis() + 10); // a read-only request: a touch
    assertThat(owner.engine.flush(session.handle(), Set.of())).isEqualTo(FlushOutcome.TOUCHED);

    assertThat(cluster.lookups("n1")).as("lookups by id on the owner").isEqualTo(before);
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").equals(java.util.Optional.of(Map.of("a", 2))));
  }

  @Test
  void handleOfASessionMigratedAway_isNotOwned_andNeitherEndsNorReKeysTheNewOwnersCopy_norConfirmsEither() throws Exception {
    cluster = new EngineCluster(config(ReplicationMode.SYNC), "n1", "n2", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    TestSession session = owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n3").engine.acquire("s1").snapshot()).isPresent(); // n3 takes it over

    assertThat(owner.engine.owns(session.handle())).isFalse();
    assertThat(owner.engine.admit(session.handle())).as("as by id").isEqualTo(owner.engine.admit("s1"));
    // Neither a 200: the login and the logout did not reach the owner, which serves the old id on.
    assertThat(owner.engine.changeId(session.handle(), "s2")).isEqualTo(FlushOutcome.FENCED);
    assertThat(owner.engine.ended(session.handle(), true).get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.FENCED);
    assertThat(owner.engine.ended(session.handle(), false).get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.NOT_OWNED);

    assertThat(cluster.node("n3").engine.owns("s1")).isTrue();
    assertThat(cluster.node("n3").engine.owns("s2")).isFalse();
  }

  @Test
  void idChangeThroughTheHandle_reKeysTheBuddysCopy() throws Exception {
    cluster = new EngineCluster(config(ReplicationMode.SYNC), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    TestSession session = owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.engine.changeId(session.handle(), "s1-after-login")).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.engine.owns("s1-after-login")).isTrue();
    assertThat(owner.engine.owns("s1")).isFalse();
    assertThat(cluster.node("n2").backup("s1-after-login")).contains(Map.of("a", 1));
    assertThat(cluster.node("n2").backup("s1")).isEmpty();
  }

  @Test
  void endThroughTheHandle_isConfirmedOnceTheBuddyDroppedItsCopy_andTheHandleIsNoLongerOwned() throws Exception {
    cluster = new EngineCluster(config(ReplicationMode.SYNC), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    TestSession session = owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.engine.ended(session.handle(), true).get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.engine.owns(session.handle())).isFalse();
    assertThat(owner.engine.owns("s1")).isFalse();
    assertThat(cluster.node("n2").backup("s1")).isEmpty();
    assertThat(owner.engine.acquire("s1")).as("an ended session never comes back").isEqualTo(Acquisition.NOWHERE);
  }
}
