package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.CodecLimits;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SYNC contract, one regression test per way it was found broken: a flush is confirmed only when a buddy
 * acknowledged every change of its request, or the owner is alone. Ring: n1 → n2 → n3 → n1.
 */
class SyncContractTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private EngineCluster cluster;

  @AfterEach
  void close() {
    pool.shutdownNow();
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ReplicationConfig.Builder config() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(3))
        .maintenanceInterval(Duration.ofHours(1));
  }

  private EngineCluster.Node ownerOfS1(EngineCluster c) {
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    return owner;
  }

  @ParameterizedTest
  @EnumSource(ReplicationScope.class)
  void refusedValue_overAnAcknowledgedOne_isNotReplicable_andTheBuddyDropsTheOlderValue(ReplicationScope scope)
      throws Exception {
    cluster = new EngineCluster(config().scope(scope).codecLimits(new CodecLimits(1024, 100, 1000)).build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);

    FlushOutcome outcome = owner.request("s1", (s, reads) -> s.setAttribute("a", new byte[4096]));

    assertThat(outcome).isEqualTo(FlushOutcome.NOT_REPLICABLE);
    assertThat(cluster.node("n2").backup("s1")).as("no older value of [a] is kept").contains(Map.of());
    assertThat(owner.engine.stats().attributesNotReplicable()).isEqualTo(1);
  }

  @Test
  void refusedValue_readByALaterRequest_isDroppedFromTheCopyWithoutFailingThatRequest() throws Exception {
    cluster = new EngineCluster(config().codecLimits(new CodecLimits(1024, 100, 1000)).build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("big", new byte[4096])))
        .isEqualTo(FlushOutcome.NOT_REPLICABLE);

    FlushOutcome laterRead = owner.request("s1", (s, reads) -> s.getAttribute("big", reads));

    assertThat(laterRead).as("the read counts as a change (READ_MARKS_DIRTY), not as the request's failure")
        .isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 1));
  }

  @Test
  void buddyThatStopsAnswering_andLeavesTheView_syncWriteIsResentToTheNextBuddyBeforeItIsConfirmed() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2", "n3");
    EngineCluster.Node owner = ownerOfS1(cluster);
    cluster.network.hang(new NodeId("n2"));

    Future<FlushOutcome> write = pool.submit(() -> owner.request("s1", (s, reads) -> s.setAttribute("a", 2)));
    await().atMost(AWAIT).until(() -> owner.engine.stats().ackTimeouts() >= 1);
    assertThat(write).isNotDone();
    cluster.cluster.crash(new NodeId("n2"));

    assertThat(write.get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n3").backup("s1")).as("on two nodes when answered").contains(Map.of("a", 2));
  }

  @Test
  void buddyThatRefusesTheConnection_staysInTheView_syncWriteIsUnconfirmedAfterTheSettleTimeout() throws Exception {
    cluster = new EngineCluster(config().settleTimeout(Duration.ofMillis(400)).build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    cluster.network.crash(new NodeId("n2")); // its connections fail at once; the membership still lists it

    FlushOutcome outcome = owner.request("s1", (s, reads) -> s.setAttribute("a", 2));

    assertThat(outcome).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(owner.engine.stats().unconfirmedWrites()).isEqualTo(1);
    assertThat(owner.engine.sessionsWithoutBackup()).isEqualTo(1);
  }

  @Test
  void buddyThatLeavesTheView_leavingTheOwnerAlone_syncWriteIsConfirmedAsAlone() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    cluster.network.hang(new NodeId("n2"));

    Future<FlushOutcome> write = pool.submit(() -> owner.request("s1", (s, reads) -> s.setAttribute("a", 2)));
    await().atMost(AWAIT).until(() -> owner.engine.stats().ackTimeouts() >= 1);
    cluster.cluster.crash(new NodeId("n2"));

    assertThat(write.get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(owner.engine.sessionsWithoutBackup()).isEqualTo(1);
  }

  @Test
  void parallelRequest_whoseChangeRodeAnotherRequestsUnacknowledgedUpdate_waitsForThatAcknowledgement() throws Exception {
    cluster = new EngineCluster(config().settleTimeout(Duration.ofMillis(400)).build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    TestSession session = owner.sessions.get("s1");
    cluster.network.hang(new NodeId("n2"));

    // Request A sets [mine]; request B flushes first and carries it; B's update is never acknowledged.
    session.setAttribute("mine", "x");
    long sent = owner.engine.stats().deltasSent();
    Future<FlushOutcome> requestB = pool.submit(() -> owner.engine.flush(session.handle(), java.util.Set.of()));
    await().atMost(AWAIT).until(() -> owner.engine.stats().deltasSent() > sent);
    FlushOutcome requestA = owner.engine.flush(session.handle(), java.util.Set.of());

    assertThat(requestA).as("A's change is not on two nodes").isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(requestB.get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.UNCONFIRMED);
  }

  @Test
  void parallelRequest_whoseChangeRodeAnotherRequestsUpdate_isConfirmedWhenThatUpdateIsAcknowledged() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    TestSession session = owner.sessions.get("s1");

    session.setAttribute("mine", "x");
    assertThat(owner.engine.flush(session.handle(), java.util.Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(owner.engine.flush(session.handle(), java.util.Set.of())).isEqualTo(FlushOutcome.TOUCHED);
  }

  @Test
  void sessionMigratedAwayWhileTheRequestRuns_flushIsFenced_notNothing() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2", "n3");
    EngineCluster.Node owner = ownerOfS1(cluster);
    TestSession session = owner.sessions.get("s1");
    session.setAttribute("late", "lost with the old copy");

    assertThat(cluster.node("n3").engine.acquire("s1").snapshot()).isPresent(); // another node's Migrate
    FlushOutcome outcome = owner.engine.flush(session.handle(), java.util.Set.of());

    assertThat(outcome).isEqualTo(FlushOutcome.FENCED);
    assertThat(outcome.isConfirmed()).isFalse();
  }

  @Test
  void pauseWhileTheRequestRan_syncFlushIsUnconfirmed_notAnOkOnACopyTheClusterMayHaveMovedOn() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2");
    EngineCluster.Node owner = ownerOfS1(cluster);
    TestSession session = owner.sessions.get("s1");
    session.setAttribute("a", 2);

    cluster.freeze("n1", Duration.ofSeconds(10)); // SIGSTOP between the application's write and the flush
    FlushOutcome outcome = owner.engine.flush(session.handle(), java.util.Set.of());

    assertThat(outcome).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(cluster.node("n2").backup("s1")).as("nothing sent before confirmation").contains(Map.of("a", 1));
  }

  @Test
  void migrationRacingFlushes_neverConfirmsAWriteTheNewOwnerLacks() throws Exception {
    for (int round = 0; round < 20; round++) {
      cluster = new EngineCluster(config().build(), "n1", "n2", "n3");
      EngineCluster.Node owner = ownerOfS1(cluster);
      TestSession session = owner.sessions.get("s1");
      AtomicBoolean stop = new AtomicBoolean();
      Future<Integer> writer = pool.submit(() -> {
        int confirmed = 1;
        for (int value = 2; !stop.get() && value < 100_000; value++) {
          session.setAttribute("a", value);
          FlushOutcome outcome = owner.engine.flush(session.handle(), java.util.Set.of());
          if (outcome == FlushOutcome.FENCED) {
            return confirmed;
          }
          if (outcome.isConfirmed()) {
            confirmed = value;
          }
        }
        return confirmed;
      });
      Thread.sleep(round % 5); // lands the migration at different points of the writer's flushes
      var moved = acquiredRetrying(cluster.node("n3"), "s1");
      stop.set(true);
      int lastConfirmed = writer.get(10, TimeUnit.SECONDS);

      int held = (Integer) cluster.node("n3").decode(moved).get("a");
      assertThat(held).as("round " + round).isGreaterThanOrEqualTo(lastConfirmed);
      cluster.close();
      cluster = null;
    }
  }

  /**
   * The session, asked for again while the answer is "unavailable" (503, the client retries): on a loaded machine the
   * owner, busy with the writer, can answer after the ack timeout, and the session is installed when the answer comes
   * (a full run of the module failed here on the first attempt).
   */
  private static io.tandem.core.session.SessionSnapshot acquiredRetrying(EngineCluster.Node node, String id)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    Acquisition acquired = node.engine.acquire(id);
    while (acquired.snapshot().isEmpty() && acquired.unavailable().isPresent() && System.nanoTime() < deadline) {
      Thread.sleep(50);
      acquired = node.engine.acquire(id);
    }
    Acquisition last = acquired;
    return last.snapshot().orElseThrow(() -> new AssertionError("session " + id + " not found: " + last));
  }

  @Test
  void joinRacingFlushes_everySessionEndsBackedUpOnTheNewBuddy() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    List<Future<?>> writers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String id = "s" + i;
      owner.create(id);
      writers.add(pool.submit(() -> {
        for (int v = 0; v < 50; v++) {
          int value = v;
          owner.request(id, (s, reads) -> s.setAttribute("a", value));
        }
      }));
    }
    cluster.start("n2"); // n1's buddy moves from n3 to n2 while the writers flush
    for (Future<?> w : writers) {
      w.get(30, TimeUnit.SECONDS);
    }

    await().atMost(AWAIT).untilAsserted(() -> {
      owner.engine.runMaintenance();
      assertThat(owner.engine.buddy()).contains(new NodeId("n2"));
      assertThat(owner.engine.sessionsWithoutBackup()).isZero();
      for (int i = 0; i < 20; i++) {
        assertThat(cluster.node("n2").backup("s" + i)).contains(Map.of("a", 49));
      }
    });
  }

  @ParameterizedTest
  @EnumSource(ReplicationMode.class)
  void invalidationNotYetAcknowledged_theOwnerNeverTakesTheBuddysCopyBackIn(ReplicationMode mode) throws Exception {
    cluster = new EngineCluster(config().mode(mode).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").isPresent());
    cluster.network.dropNext(new NodeId("n1"), new NodeId("n2"), 1); // the invalidation is lost on the way

    CompletableFuture<FlushOutcome> logout = owner.engine.invalidated("s1");

    assertThat(logout.get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(owner.engine.acquire("s1")).isEqualTo(Acquisition.NOWHERE);
    owner.engine.runMaintenance(); // re-sends the invalidation
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").isEmpty());
  }

  @Test
  void ownerThatWakesAfterItsSessionWasAdoptedAndInvalidated_cannotStoreItsStaleCopyBackOnTheAdopter() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2", "n3");
    EngineCluster.Node stale = ownerOfS1(cluster);
    EngineCluster.Node adopter = cluster.node("n2");
    cluster.cluster.crash(new NodeId("n1")); // n1 is dropped from the view (frozen); its transport still works
    await().atMost(AWAIT).until(() -> adopter.engine.owns("s1"));
    assertThat(adopter.engine.invalidated("s1").get(5, TimeUnit.SECONDS).isConfirmed()).isTrue();

    // n1 wakes and replicates its copy to the buddy it still knows: n2, which must not keep it as a backup (it would
    // adopt it, a second time, the next time n1 leaves its view: an invalidated session back).
    FlushOutcome outcome = stale.request("s1", (s, reads) -> s.setAttribute("a", 2));

    assertThat(outcome).isEqualTo(FlushOutcome.FENCED);
    assertThat(adopter.engine.backupOf("s1")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(ReplicationMode.class)
  void invalidation_isConfirmedOnlyOnceTheBuddyAcknowledgedIt(ReplicationMode mode) throws Exception {
    cluster = new EngineCluster(config().mode(mode).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").isPresent());

    FlushOutcome logout = owner.engine.invalidated("s1").get(5, TimeUnit.SECONDS);

    assertThat(logout).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s1")).isEmpty();
  }
}
