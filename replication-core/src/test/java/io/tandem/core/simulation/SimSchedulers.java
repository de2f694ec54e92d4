package io.tandem.core.simulation;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * The engine's schedulers in the simulation: every task is an event of its node's incarnation (held while the node is
 * paused, dropped once it died). The maintenance lane runs its tasks on an {@link Actors actor}, since a tick may wait
 * (a lookup of suspect sessions, a redial check), one at a time as its thread does in production; the pause watch and
 * the timeouts run on the simulation's thread, since they never wait.
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton.
 */
final class SimSchedulers implements Scheduler.Factory {
  private final Simulation sim;
  private final String node;

  SimSchedulers(Simulation sim, String node) {
    this.sim = sim;
    this.node = node;
  }

  @Override
  public Scheduler create(Scheduler.Lane lane, NodeId id) {
    return new Lane(lane);
  }

  private final class Lane implements Scheduler {
    private final Scheduler.Lane lane;
    private final int incarnation = sim.incarnation(node);
    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private boolean running;
    private boolean closed;

    Lane(Scheduler.Lane lane) {
      this.lane = lane;
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
      Task t = new Task(task);
      at(t, delay.toNanos(), () -> {});
      return t::cancel;
    }

    @Override
    public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
      Task t = new Task(task);
      long[] due = {sim.nanos() + initialDelay.toNanos()};
      Runnable[] again = new Runnable[1];
      again[0] = () -> {
        due[0] += period.toNanos();
        at(t, due[0] - sim.nanos(), again[0]);
      };
      at(t, initialDelay.toNanos(), again[0]);
      return t::cancel;
    }

    @Override
    public Cancellable scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
      Task t = new Task(task);
      Runnable[] again = new Runnable[1];
      again[0] = () -> at(t, delay.toNanos(), again[0]);
      at(t, initialDelay.toNanos(), again[0]);
      return t::cancel;
    }

    /** Runs {@code t} after {@code delayNanos}, then {@code then} (which may schedule it again). */
    private void at(Task t, long delayNanos, Runnable then) {
      if (closed) {
        return;
      }
      sim.afterOn(node, incarnation, delayNanos, lane.role() + " task", () -> {
        if (t.cancelled || closed) {
          return;
        }
        Runnable run = () -> {
          t.task.run(); // one that throws runs no more, as on a scheduled executor
          if (!t.cancelled && !closed) {
            then.run();
          }
        };
        if (lane == Scheduler.Lane.MAINTENANCE) {
          ready.add(run);
          drain();
        } else {
          run.run();
        }
      });
    }

    /** Starts the lane's next ready task on an actor unless one runs (or waits) now. */
    private void drain() {
      if (running || ready.isEmpty()) {
        return;
      }
      running = true;
      Runnable next = ready.poll();
      sim.actors().start(node, node + "-" + lane.role(), () -> {
        try {
          next.run();
        } finally {
          running = false;
          // the next ready task starts as its own event: never on this actor's stack
          sim.afterOn(node, incarnation, 0, lane.role() + " next", this::drain);
        }
      });
    }

    @Override
    public void close() {
      closed = true;
      ready.clear();
    }
  }

  private static final class Task {
    final Runnable task;
    boolean cancelled;

    Task(Runnable task) {
      this.task = task;
    }

    void cancel() {
      cancelled = true;
    }
  }
}
