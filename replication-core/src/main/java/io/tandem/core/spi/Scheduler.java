package io.tandem.core.spi;

import java.time.Duration;

/**
 * Runs the engine's work later or periodically: its maintenance tick, its pause watch, the state transfer's paced
 * batches, the timeouts it arms itself. The engine creates one scheduler per {@link Lane} through the {@link Factory}
 * its {@link EngineRuntime} holds, and never a thread or an executor of its own for these: the deterministic
 * simulation runs every lane of every engine on one thread, in virtual time.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>Tasks of one scheduler run one at a time, in the order they fall due; tasks due at the same time run in the
 *       order they were scheduled. Tasks of different schedulers may run concurrently (each lane has its own thread in
 *       production) or not (the simulation): the engine relies on neither.
 *   <li>A task never runs on the thread that schedules it, from inside {@code schedule}: callers schedule while holding
 *       locks.
 *   <li>After {@link #close()}, tasks not yet run are dropped, and a task scheduled then is dropped without an error:
 *       the engine schedules from transport threads that may still be delivering replies while it closes.
 *   <li>A periodic task that throws runs no more, as with {@link java.util.concurrent.ScheduledExecutorService}: the
 *       engine's periodic tasks catch what they can survive.
 * </ul>
 */
public interface Scheduler {
  /** What the engine schedules, each on its own scheduler. */
  enum Lane {
    /** The maintenance tick and the state transfer's batches ({@code tandem-maintenance-<node>}). */
    MAINTENANCE("maintenance"),
    /**
     * The pause check alone ({@code tandem-pause-watch-<node>}): behind ticks that wait for busy sessions' locks it
     * would take a late tick for a JVM pause.
     */
    PAUSE_WATCH("pause-watch"),
    /**
     * One-shot timeouts that complete futures the engine returned (an invalidation unconfirmed after the ack timeout).
     * Never closed by the engine: a timeout armed before it closed still fires, so every future it returned completes
     * (the valve joins them). By default the JDK's shared {@code CompletableFuture} delay thread, where {@link
     * java.util.concurrent.CompletableFuture#completeOnTimeout} ran them before: no thread of the engine's, nothing
     * to stop, and no periodic tasks.
     */
    TIMEOUTS("timeouts"),
    /**
     * The ASYNC mode's sender ({@code tandem-async-<node>}): sends what requests queued, a task per burst, never
     * waiting (a full window ends the task; a reply or the window's timer schedules the next).
     */
    ASYNC_SENDER("async"),
    /**
     * The ASYNC mode's replies that take a session's lock ({@code tandem-async-replies-<node>}), off the transport's
     * I/O threads, which must never wait for a lock a request holds.
     */
    ASYNC_REPLIES("async-replies");

    private final String role;

    Lane(String role) {
      this.role = role;
    }

    /** The role in the lane's thread name, {@code tandem-<role>-<node>}. */
    public String role() {
      return role;
    }
  }

  /** Makes the engine's schedulers; the engine closes those it made, except {@link Lane#TIMEOUTS}. */
  @FunctionalInterface
  interface Factory {
    Scheduler create(Lane lane, NodeId node);

    /**
     * Production: one single-thread scheduled executor per lane, on a daemon thread named {@code tandem-<role>-<node>}
     * (the executors the engine created itself before), and the JDK's shared delay thread for {@link Lane#TIMEOUTS}.
     */
    static Factory system() {
      return (lane, node) -> lane == Lane.TIMEOUTS
          ? SharedDelayScheduler.INSTANCE
          : new ExecutorScheduler("tandem-" + lane.role() + "-" + node.value());
    }
  }

  /**
   * Production: one single-thread scheduled executor on a daemon thread named {@code threadName}, for a part of the
   * node that owns its state on one thread (the node runtime's directory of contexts) rather than an engine's lane.
   */
  static Scheduler singleThread(String threadName) {
    return new ExecutorScheduler(threadName);
  }

  /** A scheduled task, to stop it from running (again). */
  @FunctionalInterface
  interface Cancellable {
    /** Nothing to cancel: the task was dropped, or ran already. */
    Cancellable NONE = () -> {};

    /** The task does not run from now on; one running now finishes. */
    void cancel();
  }

  /** Runs {@code task} once, {@code delay} from now. */
  Cancellable schedule(Runnable task, Duration delay);

  /**
   * Runs {@code task} {@code initialDelay} from now, then every {@code period} after the time the previous run was
   * due: runs missed while the scheduler could not run (a stalled thread, a paused JVM) follow each other at once.
   */
  Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period);

  /** Runs {@code task} {@code initialDelay} from now, then {@code delay} after each run ended. */
  Cancellable scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay);

  /** Runs {@code task} as soon as this scheduler can, after what is due already. */
  default void execute(Runnable task) {
    schedule(task, Duration.ZERO);
  }

  /** Drops every task not yet run; see the class comment. */
  void close();
}
