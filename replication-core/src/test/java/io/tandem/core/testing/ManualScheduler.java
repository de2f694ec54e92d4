package io.tandem.core.testing;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Virtual time for engines: given as an {@link io.tandem.core.spi.EngineRuntime}'s scheduler factory, it holds every
 * task of every lane of every engine built with it, and runs them on the test's thread, only when the test moves time
 * ({@link #advance}) or asks for what is due ({@link #runDue}, {@link #runNext}). An engine on it runs no periodic work
 * of its own, and its timers read {@link #ticker()}; moving the ticker alone is a JVM that did not run.
 *
 * <p>Order: by due time, then by the order tasks were scheduled, across all lanes and engines: one seed, one schedule.
 * A fixed-rate task falls due every period after its previous due time (so missed runs follow each other at once, as
 * with a scheduled executor), a fixed-delay one a delay after its run. A task that throws stops there (a periodic one
 * runs no more) and the exception reaches the test.
 *
 * <p>Implementation notes: {@code queue}, {@code sequence} and {@code running} are guarded by {@code this}; other
 * threads (a transport's, a membership's) may schedule at any time. Tasks run outside the lock, one at a time: a
 * second thread that tries to run tasks while one does is refused, since the order would no longer be the schedule's.
 */
public final class ManualScheduler implements Scheduler.Factory {
  /** More runs than this in one call is a task rescheduling itself without end. */
  private static final int MAX_RUNS_PER_CALL = 1_000_000;

  private final ManualTicker ticker;
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(Comparator.comparingLong((Task t) -> t.due).thenComparingLong(t -> t.sequence));
  private long sequence;
  private boolean running;

  public ManualScheduler(ManualTicker ticker) {
    this.ticker = ticker;
  }

  public ManualTicker ticker() {
    return ticker;
  }

  @Override
  public Scheduler create(Scheduler.Lane lane, NodeId node) {
    return new LaneScheduler(lane, node);
  }

  /**
   * Moves time on by {@code by}, running each task as its time comes (the ticker reads its due time while it runs),
   * and leaves the ticker at now + {@code by}. Returns how many tasks ran.
   */
  public int advance(Duration by) {
    long until = ticker.read() + by.toNanos();
    int runs = 0;
    while (runNextDueBy(until)) {
      runs = counted(runs);
    }
    ticker.moveTo(until);
    return runs;
  }

  /** Runs what is due now (and what that schedules for now), without moving time. Returns how many tasks ran. */
  public int runDue() {
    int runs = 0;
    while (runNextDueBy(ticker.read())) {
      runs = counted(runs);
    }
    return runs;
  }

  /** Moves time on to the earliest task, if it is later, and runs it; false when nothing is scheduled. */
  public boolean runNext() {
    return runNextDueBy(Long.MAX_VALUE);
  }

  /** The tasks {@code node}'s {@code lane} has scheduled and not run (a periodic task counts once). */
  public synchronized int pending(NodeId node, Scheduler.Lane lane) {
    return (int) queue.stream().filter(t -> t.lane.node.equals(node) && t.lane.lane == lane).count();
  }

  /** Every task scheduled and not run, earliest first, as "node/lane +delay", for a failing test's message. */
  public synchronized List<String> describe() {
    List<Task> ordered = new ArrayList<>(queue);
    ordered.sort(queue.comparator());
    long now = ticker.read();
    return ordered.stream().map(t -> t.lane.node.value() + "/" + t.lane.lane.role() + " +"
        + Duration.ofNanos(t.due - now) + (t.period != 0 ? " periodic" : "")).toList();
  }

  private static int counted(int runs) {
    if (runs + 1 >= MAX_RUNS_PER_CALL) {
      throw new IllegalStateException("over " + MAX_RUNS_PER_CALL + " tasks ran without time moving on: a task "
          + "reschedules itself without end");
    }
    return runs + 1;
  }

  private boolean runNextDueBy(long until) {
    Task task;
    synchronized (this) {
      if (running) {
        throw new IllegalStateException("tasks are run by one thread at a time: the test's");
      }
      task = queue.peek();
      if (task == null || task.due > until) {
        return false;
      }
      queue.poll();
      running = true;
    }
    try {
      ticker.moveTo(task.due);
      task.run();
    } finally {
      synchronized (this) {
        running = false;
      }
    }
    return true;
  }

  private synchronized Scheduler.Cancellable add(LaneScheduler lane, Runnable action, long delayNanos, long period) {
    if (lane.closed) {
      return Scheduler.Cancellable.NONE;
    }
    Task task = new Task(lane, action, ticker.read() + Math.max(0, delayNanos), sequence++, period);
    queue.add(task);
    return () -> cancel(task);
  }

  private synchronized void cancel(Task task) {
    task.cancelled = true;
    queue.remove(task);
  }

  private synchronized void requeue(Task task, long due) {
    if (!task.cancelled && !task.lane.closed) {
      task.due = due;
      task.sequence = sequence++;
      queue.add(task);
    }
  }

  private synchronized void close(LaneScheduler lane) {
    lane.closed = true;
    queue.removeIf(t -> t.lane == lane);
  }

  /** One task: {@code period} is 0 for a one-shot, positive at a fixed rate, negative (minus the delay) fixed-delay. */
  private final class Task {
    final LaneScheduler lane;
    final Runnable action;
    final long period;
    long due;
    long sequence;
    boolean cancelled;

    Task(LaneScheduler lane, Runnable action, long due, long sequence, long period) {
      this.lane = lane;
      this.action = action;
      this.due = due;
      this.sequence = sequence;
      this.period = period;
    }

    void run() {
      action.run(); // a throw ends a periodic task here: it is not requeued
      if (period > 0) {
        requeue(this, due + period);
      } else if (period < 0) {
        requeue(this, ticker.read() - period);
      }
    }
  }

  /** One engine's lane: its tasks go to the shared queue, and closing it drops them. */
  private final class LaneScheduler implements Scheduler {
    final Scheduler.Lane lane;
    final NodeId node;
    volatile boolean closed;

    LaneScheduler(Scheduler.Lane lane, NodeId node) {
      this.lane = lane;
      this.node = node;
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
      return add(this, task, delay.toNanos(), 0);
    }

    @Override
    public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
      return add(this, task, initialDelay.toNanos(), positive(period));
    }

    @Override
    public Cancellable scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
      return add(this, task, initialDelay.toNanos(), -positive(delay));
    }

    @Override
    public void close() {
      ManualScheduler.this.close(this);
    }

    private long positive(Duration period) {
      if (period.isNegative() || period.isZero()) {
        throw new IllegalArgumentException("period must be positive: " + period);
      }
      return period.toNanos();
    }
  }
}
