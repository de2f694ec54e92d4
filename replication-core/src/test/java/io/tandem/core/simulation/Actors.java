package io.tandem.core.simulation;

import io.tandem.core.spi.Waiter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The simulation's threads that may wait: a request in a node's container, a maintenance tick, a view change. Each
 * actor runs on a pooled platform thread, but only while the simulation's thread waits for it: starting or waking an
 * actor hands it the one baton, and the actor hands it back when it ends or waits. So the engine's production code
 * runs as it does under Tomcat (a request thread blocked in {@link Waiter#await}) and yet one thread runs at a time,
 * in an order the seed alone decides.
 *
 * <p>{@link #waiter()} is what the simulated engines are given: an actor's wait parks it until the future completes or
 * its virtual deadline passes (both are events of the actor's node, so a paused node's waits end only when it
 * resumes); a wait on the simulation's own thread is a bug of the engine (it would block a transport or timer thread
 * in production) and fails the run.
 *
 * <p>Implementation notes: every field is touched only by the thread holding the baton. A thread that blocks outside
 * {@link Waiter#await} (on a lock another actor holds while it waits) keeps the baton: {@link #resume} then waits
 * {@link #STUCK_SECONDS} and fails the run, naming the actor and its stack.
 */
final class Actors {
  private static final int STUCK_SECONDS = 30;
  private static final int MAX_THREADS = 2_000;

  private final Simulation sim;
  private final Semaphore simulationTurn = new Semaphore(0);
  private final ArrayDeque<Worker> idle = new ArrayDeque<>();
  private final List<Actor> live = new ArrayList<>();
  private final ThreadLocal<Actor> current = new ThreadLocal<>();
  private final List<Worker> all = new ArrayList<>();
  private Throwable failure;

  Actors(Simulation sim) {
    this.sim = sim;
  }

  /** A waiter for engines of this simulation. */
  Waiter waiter() {
    return this::await;
  }

  /** Starts {@code body} on an actor of {@code node}'s current incarnation now; returns when it ends or waits. */
  void start(String node, String name, Runnable body) {
    Actor actor = new Actor(node, sim.incarnation(node), name, body);
    Worker worker = idle.isEmpty() ? newWorker() : idle.pop();
    actor.worker = worker;
    worker.actor = actor;
    live.add(actor);
    resume(actor);
  }

  /** The actor running now, or null on the simulation's thread. */
  boolean onActor() {
    return current.get() != null;
  }

  /** Ends every waiting actor of {@code node} (its process died): each unwinds from its wait. */
  void unwind(String node) {
    for (Actor actor : new ArrayList<>(live)) {
      if (node == null || actor.node.equals(node)) {
        actor.unwinding = true;
        if (actor.parked) {
          resume(actor);
        }
      }
    }
  }

  /** Stops the pool's threads; called once the run ended and every actor unwound. */
  void shutdown() {
    unwind(null);
    for (Worker worker : all) {
      worker.actor = null;
      worker.turn.release();
    }
  }

  /** A failure an actor's code threw (other than its unwinding), to end the run with. */
  void rethrowFailure() {
    Throwable f = failure;
    if (f != null) {
      failure = null;
      if (f instanceof RuntimeException r) {
        throw r;
      }
      if (f instanceof Error e) {
        throw e;
      }
      throw new IllegalStateException(f);
    }
  }

  int waiting() {
    return live.size();
  }

  private <T> T await(Future<T> future, long timeoutNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    Actor self = current.get();
    if (self == null) {
      throw new IllegalStateException("the engine waited on a thread that must not block (a transport's, a timer's"
          + " or a view listener's): the simulation's own thread");
    }
    if (self.unwinding) {
      throw new Unwind();
    }
    if (future.isDone()) {
      return future.get();
    }
    if (timeoutNanos <= 0) {
      throw new TimeoutException();
    }
    if (!(future instanceof CompletableFuture<?> completable)) {
      throw new IllegalArgumentException("the simulation waits only on CompletableFutures: " + future);
    }
    long token = ++self.parks;
    Runnable wake = () -> {
      if (self.parked && self.parks == token) {
        resume(self);
      }
    };
    completable.whenComplete((v, e) -> sim.afterOn(self.node, self.incarnation, 0, "wake " + self.name, wake));
    sim.afterOn(self.node, self.incarnation, timeoutNanos, "deadline " + self.name, wake);
    park(self);
    if (future.isDone()) {
      return future.get();
    }
    throw new TimeoutException();
  }

  /** On the actor's thread: hands the baton to the simulation and waits for it back. */
  private void park(Actor self) {
    self.parked = true;
    simulationTurn.release();
    self.worker.turn.acquireUninterruptibly();
    self.parked = false;
    if (self.unwinding) {
      throw new Unwind();
    }
  }

  /** On the simulation's thread: hands the baton to {@code actor} until it ends or waits again. */
  private void resume(Actor actor) {
    actor.worker.turn.release();
    try {
      if (!simulationTurn.tryAcquire(STUCK_SECONDS, TimeUnit.SECONDS)) {
        String stack = Arrays.stream(actor.worker.thread.getStackTrace()).map(f -> "    at " + f)
            .collect(Collectors.joining("\n"));
        stopRunaway(actor.worker.thread);
        throw new IllegalStateException("actor " + actor.name + " of " + actor.node + " neither ended nor waited through the engine's"
            + " Waiter for " + STUCK_SECONDS + " s (a loop, or a lock held across a wait):\n"
            + stack);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while actor " + actor.name + " ran", e);
    }
  }

  /**
   * Stops a thread that neither ends nor waits (a loop in the engine): it would burn a core for the rest of the test
   * JVM. {@link Thread#stop} is what can stop a loop that never looks at its interrupt; where the JDK no longer has it,
   * the thread is left running, a daemon.
   */
  @SuppressWarnings({"deprecation", "removal"})
  private static void stopRunaway(Thread thread) {
    try {
      thread.stop();
    } catch (UnsupportedOperationException gone) {
      thread.interrupt();
    }
  }

  private Worker newWorker() {
    if (all.size() >= MAX_THREADS) {
      throw new IllegalStateException(MAX_THREADS + " actors wait at once: waits that never end?");
    }
    Worker worker = new Worker("tandem-sim-actor-" + all.size());
    all.add(worker);
    worker.thread.start();
    return worker;
  }

  /** Thrown from a wait of an actor whose node died: it unwinds the actor's stack as the process's death would. */
  static final class Unwind extends Error {
    private static final long serialVersionUID = 1L;

    Unwind() {
      super("the node died", null, false, false);
    }
  }

  private static final class Actor {
    final String node;
    final int incarnation;
    final String name;
    final Runnable body;
    Worker worker;
    boolean parked;
    boolean unwinding;
    long parks;

    Actor(String node, int incarnation, String name, Runnable body) {
      this.node = node;
      this.incarnation = incarnation;
      this.name = name;
      this.body = body;
    }
  }

  private final class Worker implements Runnable {
    final Semaphore turn = new Semaphore(0);
    final Thread thread;
    Actor actor;

    Worker(String name) {
      thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      while (true) {
        turn.acquireUninterruptibly();
        Actor mine = actor;
        if (mine == null) {
          return;
        }
        current.set(mine);
        try {
          if (!mine.unwinding) {
            mine.body.run();
          }
        } catch (Unwind expected) {
          // the node died while this actor waited
        } catch (Throwable t) {
          if (failure == null) {
            failure = new IllegalStateException("actor " + mine.name + " of " + mine.node + " failed", t);
          }
        } finally {
          current.remove();
          live.remove(mine);
          actor = null;
          idle.push(this);
          simulationTurn.release();
        }
      }
    }
  }
}
