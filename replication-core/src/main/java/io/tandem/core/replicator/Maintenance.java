package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * The engine's periodic tick, every {@code maintenanceInterval} on the maintenance lane ({@link
 * Scheduler.Lane#MAINTENANCE}, in production the thread {@code tandem-maintenance-<node>}). It knows none of the jobs
 * it runs: each part that has periodic work registers a {@link Task}, and a tick runs them in the order they were
 * registered, all against the same {@link Tick} (the time of day and the ring, read once as the tick starts). The
 * order is part of the protocol and is written down where the tasks are registered ({@link EngineParts}).
 *
 * <p>The same lane runs the state transfer's batches and the one-off work parts hand it ({@link #execute}); it is the
 * only one that builds bulk batches.
 *
 * <p>Implementation notes: {@code tasks} is registered by the engine's constructor before {@link #start} and only
 * read afterwards (copy-on-write). {@code closed} is set by {@link #close}, on the thread that closes the engine, and
 * read by {@link #runNow} on a test's: a closed scheduler drops tasks, and {@code runNow} must not wait for one.
 */
final class Maintenance {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  /** One job of the tick. */
  @FunctionalInterface
  interface Task {
    void run(Tick tick);
  }

  /**
   * What every task of one tick works with, read once as it starts.
   *
   * @param nowMillis the time of day: touch deadlines, and an adopted session's expiry (session times)
   * @param buddy the buddy, or null when this node is alone
   * @param view the membership's last view (not without the suspects), or null before the first
   */
  record Tick(long nowMillis, NodeId buddy, MembershipView view) {}

  private final Scheduler lane;
  private final NodeId local;
  private final InstantSource clock;
  private final RingTracker ring;
  private final List<Task> tasks = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  Maintenance(Scheduler lane, NodeId local, InstantSource clock, RingTracker ring) {
    this.lane = lane;
    this.local = local;
    this.clock = clock;
    this.ring = ring;
  }

  /** Adds {@code task} to every tick, after the tasks registered before it. Before {@link #start} only. */
  void register(Task task) {
    tasks.add(task);
  }

  void start(Duration period) {
    lane.scheduleWithFixedDelay(this::tickSafely, period, period);
  }

  /** Runs {@code work} once on the maintenance lane; dropped once the engine closed. */
  void execute(Runnable work) {
    lane.execute(work);
  }

  /**
   * Runs one tick on the maintenance lane and waits for it; for tests that move a manual clock on the production
   * schedulers. It blocks: on a {@code ManualScheduler} a test advances the scheduler instead.
   */
  void runNow() {
    if (closed) {
      throw new RejectedExecutionException("engine " + local.value() + " is closed"); // as its executor refused before
    }
    try {
      CompletableFuture.runAsync(this::tick, lane::execute).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("maintenance tick failed", e.getCause());
    }
  }

  void close() {
    closed = true;
    lane.close();
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "Tandem maintenance tick failed; it will run again", e);
    }
  }

  private void tick() {
    long now = clock.millis();
    RingState current = ring.state();
    Tick tick = new Tick(now, current.buddy(), current.view());
    for (Task task : tasks) {
      task.run(tick);
    }
  }
}
