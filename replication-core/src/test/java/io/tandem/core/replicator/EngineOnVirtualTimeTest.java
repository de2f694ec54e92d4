package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler.Lane;
import io.tandem.core.testing.ManualScheduler;
import io.tandem.core.testing.ManualTicker;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's periodic work runs on the schedulers its runtime gives it and reads the ticker it gives it (issue 27's
 * first prerequisite for the simulation): two engines on a {@link ManualScheduler}, whose tick, pause watch,
 * re-protection and invalidation timeout run only when the test moves virtual time.
 *
 * <p>The periods are minutes and the ack timeout ten seconds, and the test moves nothing in real time: an engine that
 * still ran an executor of its own, or read {@link System#nanoTime()}, would do none of it within the test. The
 * messages between the engines still cross the in-memory network on its own threads (awaited, never slept on).
 */
class EngineOnVirtualTimeTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final Duration TICK = Duration.ofMinutes(1);
  private static final Duration PAUSE_THRESHOLD = Duration.ofSeconds(20);
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(10);
  private static final NodeId N1 = new NodeId("n1");

  private final ManualScheduler virtual = new ManualScheduler(new ManualTicker());
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private EngineCluster start(String... nodes) throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(ACK_TIMEOUT).maintenanceInterval(TICK)
        .pauseThreshold(PAUSE_THRESHOLD).touchLagCap(Duration.ofSeconds(10)).build(), virtual, nodes);
    return cluster;
  }

  private static EngineCluster.Node owning(EngineCluster c, String node, String session) {
    EngineCluster.Node owner = c.node(node);
    owner.create(session);
    assertThat(owner.request(session, (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    return owner;
  }

  @Test
  void theTickerJumpingPastThePauseThreshold_isAPause_whenTheInjectedPauseWatchRuns() throws Exception {
    EngineCluster c = start("n1", "n2");
    EngineCluster.Node owner = owning(c, "n1", "s1");
    assertThat(virtual.pending(N1, Lane.PAUSE_WATCH)).as(virtual.describe().toString()).isEqualTo(1);

    virtual.advance(TICK.multipliedBy(3)); // time passes with the watch on time, every 2 s: no pause
    assertThat(owner.engine.stats().pausesDetected()).isZero();

    virtual.ticker().advance(PAUSE_THRESHOLD.plusSeconds(1)); // the JVM did not run: nothing observed it yet
    assertThat(owner.engine.stats().pausesDetected()).isZero();
    virtual.runDue(); // the watch's late run sees the gap on the ticker

    assertThat(owner.engine.stats().pausesDetected()).isEqualTo(1);
    // As after a real pause: the session is suspect, and its SYNC flush is not confirmed until the cluster is asked.
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 2))).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(owner.engine.admit("s1")).isEqualTo(Admission.ADMITTED); // n2 holds its copy at this epoch
  }

  @Test
  void theMaintenanceTick_runsOnTheInjectedScheduler_sendingDueTouchesAndExpiringAnAdoptedSession() throws Exception {
    EngineCluster c = start("n1", "n2");
    EngineCluster.Node owner = owning(c, "n1", "s1");
    EngineCluster.Node buddy = c.node("n2");
    c.clock.advance(Duration.ofSeconds(1));
    assertThat(owner.request("s1", (s, reads) -> {})).isEqualTo(FlushOutcome.TOUCHED);
    long touchedAt = c.clock.millis();
    c.clock.advance(Duration.ofSeconds(11)); // past the touch's deadline on the wall clock

    assertThat(owner.engine.stats().touchBatchesSent()).isZero(); // nothing ticks on its own
    virtual.advance(TICK);

    assertThat(owner.engine.stats().touchBatchesSent()).isEqualTo(1);
    await().atMost(AWAIT).until(() -> buddy.engine.backupOf("s1").orElseThrow().metadata().lastAccessedTime() == touchedAt);

    c.crash("n1");
    await().atMost(AWAIT).until(() -> buddy.engine.owns("s1")); // adopted by its heir, still stored (not attached)
    c.clock.advance(Duration.ofMinutes(30)); // its maxInactive, since the last access the backup knew of
    assertThat(buddy.engine.owns("s1")).isTrue();
    virtual.advance(TICK);

    assertThat(buddy.engine.owns("s1")).isFalse(); // the tick expired it (with no grace: docs/protocol.md 8.4)
  }

  @Test
  void reprotectionAfterAJoin_isSentWhenTheInjectedMaintenanceSchedulerRunsIt() throws Exception {
    EngineCluster c = start("n1");
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(virtual.pending(N1, Lane.MAINTENANCE)).isEqualTo(1); // the tick

    c.start("n2");
    // The view reaches n1 on its membership's thread, which queues the state transfer's batch here.
    await().atMost(AWAIT).until(() -> virtual.pending(N1, Lane.MAINTENANCE) == 2);
    assertThat(c.node("n2").engine.backupOf("s1")).isEmpty();
    virtual.runDue();

    await().atMost(AWAIT).until(() -> owner.engine.stats().stateTransferSessions() == 1); // counted after the ack
    assertThat(owner.engine.sessionsWithoutBackup()).isZero();
    assertThat(c.node("n2").engine.backupOf("s1")).isPresent();
  }

  @Test
  void anInvalidationNobodyAcknowledges_isUnconfirmedAtTheAckTimeout_inVirtualTime() throws Exception {
    EngineCluster c = start("n1", "n2");
    EngineCluster.Node owner = owning(c, "n1", "s1");
    c.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate) {
        throw new IllegalStateException("invalidations are lost in this test");
      }
      return c.throughTheCodec(message);
    });

    CompletableFuture<FlushOutcome> ended = owner.engine.invalidated("s1");
    assertThat(virtual.pending(N1, Lane.TIMEOUTS)).isEqualTo(1);
    virtual.advance(ACK_TIMEOUT.minusMillis(1));
    assertThat(ended).isNotDone();
    virtual.advance(Duration.ofMillis(1));

    assertThat(ended).isCompletedWithValue(FlushOutcome.UNCONFIRMED);
    assertThat(virtual.pending(N1, Lane.TIMEOUTS)).isZero();
  }
}
