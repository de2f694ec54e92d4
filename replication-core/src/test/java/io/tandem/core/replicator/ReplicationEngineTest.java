package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.config.MutationPolicy;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine end to end on the in-memory transport, for every scope × codec × mode. Nodes n1 → n2 → n3 → n1 are
 * each other's buddies; sessions are created on n1, so n2 holds their backups.
 */
class ReplicationEngineTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private EngineCluster cluster;

  static Stream<Arguments> matrix() {
    List<Arguments> all = new ArrayList<>();
    for (ReplicationScope scope : ReplicationScope.values()) {
      for (CodecKind codec : CodecKind.values()) {
        for (ReplicationMode mode : ReplicationMode.values()) {
          all.add(Arguments.of(scope, codec, mode));
        }
      }
    }
    return all.stream();
  }

  private static ReplicationConfig.Builder config(ReplicationScope scope, CodecKind codec, ReplicationMode mode) {
    return ReplicationConfig.builder()
        .scope(scope)
        .codec(codec)
        .mode(mode)
        .ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)); // ticks are driven by the tests through runMaintenance()
  }

  private EngineCluster cluster(ReplicationConfig config, String... nodes) throws Exception {
    cluster = new EngineCluster(config, nodes);
    return cluster;
  }

  @AfterEach
  void closeCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void flush_setsAndRemovals_reachTheBuddy(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");

    owner.request("s1", (s, reads) -> {
      s.setAttribute("user", "alice");
      s.setAttribute("cart", new ArrayList<>(List.of("book")));
    });
    owner.request("s1", (s, reads) -> s.setAttribute("count", 2));
    FlushOutcome last = owner.request("s1", (s, reads) -> s.removeAttribute("cart"));

    assertThat(last).isIn(mode == ReplicationMode.SYNC ? FlushOutcome.REPLICATED : FlushOutcome.QUEUED);
    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").backup("s1")).contains(Map.of("user", "alice", "count", 2)));
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    assertThat(c.node("n3").backup("s1")).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void buddyDeath_ownerReprotectsOnNextBuddy(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = c.node("n1");
    for (int i = 0; i < 20; i++) {
      String id = "s" + i;
      owner.create(id);
      int value = i;
      owner.request(id, (s, reads) -> s.setAttribute("v", value));
    }
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);

    c.crash("n2");

    await().atMost(AWAIT).untilAsserted(() -> {
      assertThat(owner.engine.buddy()).contains(new NodeId("n3"));
      assertThat(owner.engine.sessionsWithoutBackup()).isZero();
      assertThat(owner.engine.lastReprotectionTime()).isPresent();
    });
    for (int i = 0; i < 20; i++) {
      assertThat(c.node("n3").backup("s" + i)).contains(Map.of("v", i));
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void ownerDeath_buddyAdoptsAndProtectsAgain(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("user", "bob"));
    owner.request("s1", (s, reads) -> s.setAttribute("step", 2));
    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").backup("s1")).contains(Map.of("user", "bob", "step", 2)));

    c.crash("n1");

    EngineCluster.Node adopter = c.node("n2");
    await().atMost(AWAIT).untilAsserted(() -> {
      assertThat(adopter.engine.owns("s1")).isTrue();
      assertThat(adopter.engine.sessionsWithoutBackup()).isZero();
      assertThat(c.node("n3").backup("s1")).contains(Map.of("user", "bob", "step", 2));
    });
    assertThat(c.node("n3").engine.backupOf("s1").orElseThrow().epoch()).isEqualTo(2);
    assertThat(adopter.engine.promote("s1").map(adopter::decode)).contains(Map.of("user", "bob", "step", 2));
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void lostUpdate_buddyReportsGap_ownerResendsFull(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());

    c.network.dropNext(new NodeId("n1"), new NodeId("n2"), 1);
    owner.request("s1", (s, reads) -> s.setAttribute("b", 2));
    owner.request("s1", (s, reads) -> s.setAttribute("c", 3));

    // Either the next update meets the gap, or (when both coalesced into the lost message) the timeout marks the
    // session for a full resend, which the maintenance tick performs.
    await().atMost(AWAIT).untilAsserted(() -> {
      owner.engine.runMaintenance();
      assertThat(c.node("n2").backup("s1")).contains(Map.of("a", 1, "b", 2, "c", 3));
    });
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void formerOwner_writesAfterTakeover_areRejectedAsStale(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());

    // n1 is cut off from membership only: the others think it died, but it still reaches n2 and keeps serving.
    c.cluster.crash(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> c.node("n2").engine.owns("s1"));
    owner.request("s1", (s, reads) -> s.setAttribute("a", 99));

    await().atMost(AWAIT).untilAsserted(() -> assertThat(owner.listener.fenced).contains("s1"));
    assertThat(owner.engine.owns("s1")).isFalse();
    assertThat(c.node("n2").engine.promote("s1").map(c.node("n2")::decode)).contains(Map.of("a", 1));
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void parallelRequests_onOneSession_loseNothing(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    int threads = 4;
    int perThread = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<FlushOutcome>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        results.add(pool.submit(() -> {
          List<FlushOutcome> outcomes = new ArrayList<>();
          for (int i = 0; i < perThread; i++) {
            String name = "t" + thread + "-" + i;
            outcomes.add(owner.request("s1", (s, reads) -> s.setAttribute(name, name)));
          }
          return outcomes;
        }));
      }
      for (Future<List<FlushOutcome>> result : results) {
        assertThat(result.get()).allMatch(FlushOutcome::isConfirmed);
      }
    } finally {
      pool.shutdownNow();
    }
    owner.engine.runMaintenance();

    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").backup("s1")).hasValueSatisfying(m -> assertThat(m).hasSize(threads * perThread)));
    assertThat(c.node("n2").backup("s1").orElseThrow()).isEqualTo(Map.copyOf(owner.sessions.get("s1").attributes()));
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void verifyMode_inPlaceMutationWithoutSetAttribute_isReportedAndReplicated(
      ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(
        config(scope, codec, mode).mutationPolicy(MutationPolicy.SET_ONLY).verifyMutations(true).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("cart", new ArrayList<>(List.of("book"))));
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);

    owner.request("s1", (s, reads) -> castToList(s.getAttribute("cart", reads)).add("pen"));

    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").backup("s1")).contains(Map.of("cart", List.of("book", "pen"))));
    if (scope != ReplicationScope.SESSION) {
      assertThat(owner.listener.unsetMutations).containsExactly("s1/cart");
      assertThat(owner.engine.stats().unsetMutationsDetected()).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void readMarksDirty_inPlaceMutationAfterRead_isReplicatedWithoutVerify(
      ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> {
      s.setAttribute("cart", new ArrayList<>(List.of("book")));
      s.setAttribute("name", "carol");
    });

    owner.request("s1", (s, reads) -> castToList(s.getAttribute("cart", reads)).add("pen"));

    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").backup("s1")).contains(Map.of("cart", List.of("book", "pen"), "name", "carol")));
    assertThat(owner.listener.unsetMutations).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void readOnlyRequests_reachTheBuddyAsOneTouchBatchWithinTheLagBound(
      ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).touchLagCap(Duration.ofSeconds(10)).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("name", "dave"));
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    long fullsAndDeltas = owner.engine.stats().fullsSent() + owner.engine.stats().deltasSent();

    for (int i = 0; i < 5; i++) {
      c.clock.advance(Duration.ofSeconds(1));
      owner.request("s1", (s, reads) -> s.getAttribute("name", reads));
    }
    owner.engine.runMaintenance();
    long lastRead = c.clock.millis();
    c.clock.advance(Duration.ofSeconds(10));
    owner.engine.runMaintenance();

    await().atMost(AWAIT).untilAsserted(
        () -> assertThat(c.node("n2").engine.backupOf("s1").orElseThrow().metadata().lastAccessedTime()).isEqualTo(lastRead));
    if (scope == ReplicationScope.SESSION) {
      assertThat(owner.engine.stats().touchesSent()).isZero();
    } else {
      assertThat(owner.engine.stats().fullsSent() + owner.engine.stats().deltasSent()).isEqualTo(fullsAndDeltas);
      assertThat(owner.engine.stats().touchBatchesSent()).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void invalidatedSession_isDroppedByTheBuddyAndNeverComesBack(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());

    owner.engine.invalidated("s1");
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isEmpty());
    c.crash("n1");

    await().atMost(AWAIT).until(() -> c.node("n2").engine.buddy().isPresent()
        && c.node("n2").engine.buddy().get().equals(new NodeId("n3")));
    c.node("n2").engine.runMaintenance();
    assertThat(c.node("n2").engine.owns("s1")).isFalse();
    assertThat(c.node("n2").engine.promote("s1")).isEmpty();
    assertThat(c.node("n3").backup("s1")).isEmpty();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("matrix")
  void idChange_buddyRekeysItsCopy(ReplicationScope scope, CodecKind codec, ReplicationMode mode) throws Exception {
    EngineCluster c = cluster(config(scope, codec, mode).build(), "n1", "n2");
    EngineCluster.Node owner = c.node("n1");
    TestSession session = owner.create("before-login");
    owner.request("before-login", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("before-login").isPresent());

    session.changeId("after-login");
    owner.sessions.put("after-login", session);
    owner.request("after-login", (s, reads) -> s.setAttribute("b", 2));

    await().atMost(AWAIT).untilAsserted(() -> {
      assertThat(c.node("n2").backup("after-login")).contains(Map.of("a", 1, "b", 2));
      assertThat(c.node("n2").backup("before-login")).isEmpty();
    });
  }

  @SuppressWarnings("unchecked")
  private static List<String> castToList(Object value) {
    return (List<String>) value;
  }

}
