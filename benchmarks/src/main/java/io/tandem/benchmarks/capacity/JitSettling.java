package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.load.LoadProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The capped half of a pair's warm-up: unjudged load on the capped nodes, in rounds, until neither node's JIT
 * compiler threads used more than {@link #QUIET_CORES} of a core in a round, or the rounds allowed ran (at most {@link
 * #MAX_ROUNDS}; {@link #roundsFor} a shorter warm-up).
 *
 * <p>Why: the uncapped warm-up compiles the request path, but capped nodes take branches it did not (a reply that
 * waits, writes that queue, acknowledgements in ranges, sessions expiring), and C2 recompiled for them during the
 * measured steps. Measured on 2026-11-26 (compiler threads from {@code /proc}): in the first capped step after the 90 s
 * uncapped warm-up, C2 used 0.07 core of a Tandem SYNC node's 0.25-core quota; over the fixed-load step after the
 * search, 15 to 59 µs per request on Tandem SYNC nodes against 0 to 5 on the control's. The figures measured a JIT
 * still at work on some setups and not on others. Every setup gets the same rule; the report says how many rounds each
 * took, and whether its JIT went quiet.
 *
 * <p>Implementation notes: runs on the caller's thread; reads {@code /proc/<pid>/task} through {@link ProcThreads}.
 */
final class JitSettling {
  static final Duration ROUND = Duration.ofSeconds(10);
  static final int MAX_ROUNDS = 6;

  /**
   * Per node: 100 ms of compiler CPU in a 10 s round, a twenty-fifth of a 0.25-core quota. Not zero: code that runs
   * once a second or on a new connection (membership heartbeats, connection set-up) reaches the compile thresholds
   * for minutes, and a node with more code has a longer tail (Tandem's nodes were still compiling 0.02 to 0.03 core
   * after 90 s of capped load, nearly all of it such code, with no method compiled over and over).
   */
  static final double QUIET_CORES = 0.01;

  /** As many rounds as the uncapped warm-up's first part lasts (60 s: 6 rounds; --quick's 15 s: 1), at least one. */
  static int roundsFor(Duration uncappedWarmUp) {
    return (int) Math.max(1, Math.min(MAX_ROUNDS, uncappedWarmUp.toSeconds() / ROUND.toSeconds()));
  }

  /**
   * What the capped warm-up did.
   *
   * @param rounds rounds of {@link #ROUND} run
   * @param settled the last round's compiler CPU was at most {@link #QUIET_CORES} on every node
   * @param lastRoundJitCores each node's compiler threads' CPU in the last round, in cores, in node order
   */
  record Outcome(int rounds, boolean settled, List<Double> lastRoundJitCores) {
    Outcome {
      lastRoundJitCores = List.copyOf(lastRoundJitCores);
    }
  }

  /** One unjudged round of load on the capped nodes. */
  interface Round {
    void run(LoadProfile profile) throws Exception;
  }

  private JitSettling() {}

  /**
   * Runs rounds of {@code profile} (its timing replaced by one {@link #ROUND}) until the compiler threads of every
   * process in {@code pids} went quiet, at most {@code maxRounds}.
   */
  static Outcome run(Round round, LoadProfile profile, List<Long> pids, int maxRounds) throws Exception {
    return run(round, profile, pids, maxRounds, ProcThreads::of);
  }

  static Outcome run(Round round, LoadProfile profile, List<Long> pids, int maxRounds,
      LongFunction<Map<Integer, ThreadSample>> threadsOf) throws Exception {
    LoadProfile oneRound = profile.withTiming(Duration.ZERO, ROUND, profile.requestTimeout());
    List<Double> cores = List.of();
    for (int rounds = 1; rounds <= maxRounds; rounds++) {
      List<Long> before = compilerTicks(pids, threadsOf);
      long started = System.nanoTime();
      round.run(oneRound);
      double seconds = Math.max(1e-9, (System.nanoTime() - started) / 1e9);
      List<Long> after = compilerTicks(pids, threadsOf);
      List<Double> roundCores = new ArrayList<>();
      for (int i = 0; i < pids.size(); i++) {
        roundCores.add((after.get(i) - before.get(i)) * ThreadSample.MICROS_PER_TICK / 1e6 / seconds);
      }
      cores = roundCores;
      if (cores.stream().allMatch(c -> c <= QUIET_CORES)) {
        return new Outcome(rounds, true, cores);
      }
    }
    return new Outcome(maxRounds, false, cores);
  }

  /** The CPU ticks, user and kernel, of each process's JIT threads so far (threads that ended are not counted). */
  private static List<Long> compilerTicks(List<Long> pids, LongFunction<Map<Integer, ThreadSample>> threadsOf) {
    List<Long> ticks = new ArrayList<>();
    for (long pid : pids) {
      ticks.add(threadsOf.apply(pid).values().stream()
          .filter(t -> ThreadGroups.of(t.comm()).equals(ThreadGroups.JIT))
          .mapToLong(t -> t.userTicks() + t.systemTicks())
          .sum());
    }
    return ticks;
  }
}
