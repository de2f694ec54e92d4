package io.tandem.core.simulation;

import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The simulated world's time, randomness and event queue: one seed decides every choice, and events run one at a time
 * in (due time, scheduling order), so a seed replays exactly.
 *
 * <p>An event belongs to a node (its tasks, the messages it receives, the replies to its requests, its parked
 * threads' wake-ups) or to the world (clients, faults). A paused node's events are held in their order and run when
 * it resumes; a dead incarnation's events are dropped. Events run on the simulation's thread, or on an {@link
 * Actors actor} where the engine may wait (a request, a maintenance tick, a view change): the actor runs while the
 * simulation's thread waits, so one thread runs at a time.
 *
 * <p>Implementation notes: not thread-safe and needs not be: only the thread that holds the baton (the simulation's
 * thread or the one running actor) touches it.
 */
final class Simulation {
  /** Every run starts its virtual clock here; a wall clock reads this plus its node's offset. */
  static final long EPOCH_MILLIS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  private final long seed;
  private final Random random;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private final Map<String, List<Event>> held = new HashMap<>();
  private final Map<String, Integer> incarnations = new HashMap<>();
  private final Map<String, Boolean> paused = new HashMap<>();
  private final Trace trace;
  private final Actors actors;
  private long now;
  private long sequence;
  private long eventsRun;

  /**
   * @param scrambled whether the seed is mixed before it seeds the {@link Random}: {@code java.util.Random}'s first
   *     draws from consecutive seeds are strongly correlated (seeds 0–3999 never drew a cluster of 2 or 3 nodes, and
   *     4096–4999 drew only 2), so a range of seeds covered a sliver of the schedules. False only to replay the seeds
   *     found before this was noticed ({@link SimulationSeedsTest})
   */
  Simulation(long seed, Trace trace, boolean scrambled) {
    this.seed = seed;
    this.random = new Random(scrambled ? mix(seed) : seed);
    this.trace = trace;
    this.actors = new Actors(this);
  }

  long seed() {
    return seed;
  }

  /** A 64-bit finalizer (MurmurHash3's fmix64): consecutive inputs give unrelated outputs. */
  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  Random random() {
    return random;
  }

  Trace trace() {
    return trace;
  }

  Actors actors() {
    return actors;
  }

  /** Virtual nanoseconds since the run began. */
  long nanos() {
    return now;
  }

  long millis() {
    return now / 1_000_000;
  }

  long eventsRun() {
    return eventsRun;
  }

  /** Uniform in [from, to] milliseconds, as nanoseconds. */
  long millisBetween(long from, long to) {
    return (from + (long) (random.nextDouble() * (to - from + 1))) * 1_000_000;
  }

  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  // ---- nodes' lives --------------------------------------------------------------------------------------------

  /** The incarnation of {@code node} running now, or 0 when none runs. */
  int incarnation(String node) {
    return incarnations.getOrDefault(node, 0);
  }

  /** Starts a new incarnation of {@code node}; events of earlier ones are dropped from now on. */
  int born(String node) {
    int next = Math.abs(incarnations.getOrDefault(node, 0)) + 1;
    incarnations.put(node, next);
    paused.put(node, false);
    return next;
  }

  /** The running incarnation stops: its events are dropped (a negative number keeps the count going). */
  void died(String node) {
    incarnations.put(node, -Math.abs(incarnations.getOrDefault(node, 0)));
    paused.put(node, false);
    held.remove(node);
  }

  boolean alive(String node) {
    return incarnations.getOrDefault(node, 0) > 0;
  }

  boolean paused(String node) {
    return paused.getOrDefault(node, false);
  }

  void pause(String node) {
    paused.put(node, true);
  }

  /** Runs what the node's pause held back, in its order, before anything due later. */
  void resume(String node) {
    paused.put(node, false);
    List<Event> events = held.remove(node);
    if (events != null) {
      for (Event e : events) {
        queue.add(new Event(now, sequence++, e.node, e.incarnation, e.what, e.task));
      }
    }
  }

  // ---- events --------------------------------------------------------------------------------------------------

  /** Runs {@code task} after {@code delayNanos}, for the world (clients, faults): never held, never dropped. */
  void after(long delayNanos, String what, Runnable task) {
    queue.add(new Event(now + Math.max(0, delayNanos), sequence++, null, 0, what, task));
  }

  /** Runs {@code task} after {@code delayNanos} for the running incarnation of {@code node}. */
  void afterOn(String node, long delayNanos, String what, Runnable task) {
    afterOn(node, incarnation(node), delayNanos, what, task);
  }

  /** Runs {@code task} after {@code delayNanos} if incarnation {@code incarnation} of {@code node} still runs then. */
  void afterOn(String node, int incarnation, long delayNanos, String what, Runnable task) {
    if (incarnation <= 0) {
      return;
    }
    queue.add(new Event(now + Math.max(0, delayNanos), sequence++, node, incarnation, what, task));
  }

  /** Runs events until none is due at or before {@code until}; time ends at {@code until}. */
  void runUntil(long until) {
    while (!queue.isEmpty() && queue.peek().due <= until) {
      Event e = queue.poll();
      now = Math.max(now, e.due);
      if (e.node != null) {
        if (incarnation(e.node) != e.incarnation) {
          continue; // that process is gone
        }
        if (paused(e.node)) {
          held.computeIfAbsent(e.node, n -> new ArrayList<>()).add(e);
          continue;
        }
      }
      eventsRun++;
      if (eventsRun > 50_000_000L) {
        throw new IllegalStateException("more than 50,000,000 events: something reschedules itself without end");
      }
      e.task.run();
      actors.rethrowFailure();
    }
    now = Math.max(now, until);
  }

  /** Runs everything due now. */
  void runDue() {
    runUntil(now);
  }

  void forEachHeld(Consumer<String> action) {
    new ArrayDeque<>(held.keySet()).forEach(action);
  }

  private record Event(long due, long sequence, String node, int incarnation, String what, Runnable task)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int byDue = Long.compare(due, o.due);
      return byDue != 0 ? byDue : Long.compare(sequence, o.sequence);
    }
  }
}
