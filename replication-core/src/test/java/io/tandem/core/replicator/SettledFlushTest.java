package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A SYNC flush settled without a thread waiting for it ({@link PendingFlush#settle}): a plain acknowledgement settles
 * it on the thread that delivers it, and everything else goes to the waiting path on the caller's executor, with the
 * same outcome and deadline a waiting request thread gets. Ring: n1 → n2 → n3 → n1.
 */
class SettledFlushTest {
  /** Long enough that no test below can pass by waiting for the transport to give up on a silent buddy. */
  private static final Duration TRANSPORT_TIMEOUT = Duration.ofSeconds(60);

  private final ExecutorService pool = Executors.newCachedThreadPool();
  /** The waiting path's executor: counts what was handed to it, runs it on {@link #pool}. */
  private final List<Runnable> handedOver = new CopyOnWriteArrayList<>();
  private final Executor waiting = work -> {
    handedOver.add(work);
    pool.execute(work);
  };
  private EngineCluster cluster;

  @AfterEach
  void close() {
    pool.shutdownNow();
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ReplicationConfig config() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(30))
        .maintenanceInterval(Duration.ofHours(1)).build();
  }

  private EngineCluster.Node protectedS1(String... nodes) throws Exception {
    cluster = new EngineCluster(config(), TRANSPORT_TIMEOUT, nodes);
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    return owner;
  }

  @Test
  void acknowledgementOfAProtectedSession_settlesOnTheThreadThatDeliversIt_withoutTheWaitingExecutor() throws Exception {
    EngineCluster.Node owner = protectedS1("n1", "n2");
    long acksBefore = owner.engine.stats().acks();

    CompletableFuture<Thread> settledOn = new CompletableFuture<>();
    CompletableFuture<FlushOutcome> settled = owner.begin("s1", (s, reads) -> s.setAttribute("a", 2)).settle(waiting)
        .whenComplete((outcome, failure) -> settledOn.complete(Thread.currentThread()));

    assertThat(settled.get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(handedOver).as("no thread of the caller's was needed").isEmpty();
    assertThat(settledOn.get()).isNotEqualTo(Thread.currentThread());
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 2));
    assertThat(owner.engine.stats().acks()).isEqualTo(acksBefore + 1);
  }

  @Test
  void buddyThatStopsAnswering_andLeavesTheView_settleIsHandedToTheWaitingPath_whichReSendsToTheNextBuddy()
      throws Exception {
    EngineCluster.Node owner = protectedS1("n1", "n2", "n3");
    cluster.network.hang(new NodeId("n2"));

    CompletableFuture<FlushOutcome> settled = owner.begin("s1", (s, reads) -> s.setAttribute("a", 2)).settle(waiting);
    Thread.sleep(2 * config().ackTimeout().toMillis()); // past the ack timeout, the reply still awaited
    assertThat(settled).isNotDone();
    assertThat(handedOver).isEmpty();
    cluster.cluster.crash(new NodeId("n2"));

    // Without the ring change handing it over, the settle would wait for the transport's 60 s timeout.
    assertThat(settled.get(20, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(handedOver).hasSize(1);
    assertThat(cluster.node("n3").backup("s1")).as("on two nodes when answered").contains(Map.of("a", 2));
  }

  @Test
  void buddyThatLeavesTheView_leavingTheOwnerAlone_settlesAsAlone() throws Exception {
    EngineCluster.Node owner = protectedS1("n1", "n2");
    cluster.network.hang(new NodeId("n2"));

    CompletableFuture<FlushOutcome> settled = owner.begin("s1", (s, reads) -> s.setAttribute("a", 2)).settle(waiting);
    cluster.cluster.crash(new NodeId("n2"));

    assertThat(settled.get(20, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(owner.engine.sessionsWithoutBackup()).isEqualTo(1);
  }

  @Test
  void buddyWhoseConnectionFails_settleIsHandedOverAtOnce_andUnconfirmedAtTheDeadline() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofMillis(400)).maintenanceInterval(Duration.ofHours(1)).build(), TRANSPORT_TIMEOUT,
        "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    cluster.network.crash(new NodeId("n2")); // its connections fail at once; the membership still lists it

    CompletableFuture<FlushOutcome> settled = owner.begin("s1", (s, reads) -> s.setAttribute("a", 2)).settle(waiting);

    assertThat(settled.get(20, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(handedOver).hasSize(1);
    assertThat(owner.engine.stats().unconfirmedWrites()).isEqualTo(1);
  }

  @Test
  void firstAcknowledgementAfterTheSessionLostItsProtection_isRecordedByTheWaitingPath() throws Exception {
    EngineCluster.Node owner = protectedS1("n1", "n2");
    OwnedSession handle = owner.sessions.get("s1").handle();
    handle.markUnprotected(); // as a failed send or a new buddy leaves it: the next flush sends it in full

    CompletableFuture<FlushOutcome> settled = owner.begin("s1", (s, reads) -> s.setAttribute("a", 2)).settle(waiting);

    assertThat(settled.get(20, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(handedOver).as("becoming protected takes the session's lock: not on the transport's thread").hasSize(1);
    assertThat(handle.isProtected()).isTrue();
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 2));
  }

  @Test
  void flushWithNothingToSend_isDecided_andSettlesAtOnce() throws Exception {
    EngineCluster.Node owner = protectedS1("n1", "n2");

    PendingFlush nothing = owner.begin("s1", (s, reads) -> { });

    assertThat(nothing.decided()).hasValueSatisfying(o -> assertThat(o.isConfirmed()).isTrue());
    assertThat(nothing.settle(waiting)).isCompletedWithValue(nothing.decided().get());
    assertThat(handedOver).isEmpty();
  }
}
