package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.benchmarks.load.LoadProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The capped warm-up's stopping rule, with the processes' compiler threads read from a scripted /proc. */
class JitSettlingTest {
  private static final long NODE_1 = 101;
  private static final long NODE_2 = 202;

  /** Compiler ticks per process, moved on by each round; a request thread's ticks beside them must not count. */
  private final Map<Long, Long> compilerTicks = new HashMap<>(Map.of(NODE_1, 0L, NODE_2, 0L));
  private final List<Duration> roundWindows = new ArrayList<>();

  private Map<Integer, ThreadSample> threadsOf(long pid) {
    long ticks = compilerTicks.get(pid);
    return Map.of(
        1, new ThreadSample(1, "C2 CompilerThre", 7, ticks, 0, 0, 0),
        2, new ThreadSample(2, "http-nio-8080-e", 7, 100_000 + roundWindows.size() * 1_000L, 0, 0, 0));
  }

  /** A round in which each node's compiler threads use {@code ticks} ticks (10 ms each), as the list says. */
  private JitSettling.Round rounds(List<long[]> ticksPerRound) {
    return profile -> {
      roundWindows.add(profile.window());
      long[] ticks = ticksPerRound.get(Math.min(roundWindows.size() - 1, ticksPerRound.size() - 1));
      compilerTicks.merge(NODE_1, ticks[0], Long::sum);
      compilerTicks.merge(NODE_2, ticks[1], Long::sum);
    };
  }

  @Test
  void stopsAtTheFirstRoundInWhichEveryNodesJitWasQuiet() throws Exception {
    // A round takes (almost) no time here, so a tick is a lot of cores: only a round without compiler ticks is quiet.
    JitSettling.Outcome outcome = JitSettling.run(
        rounds(List.of(new long[] {40, 3}, new long[] {0, 2}, new long[] {0, 0}, new long[] {50, 50})),
        LoadProfile.of(1500), List.of(NODE_1, NODE_2), JitSettling.MAX_ROUNDS, this::threadsOf);

    assertThat(outcome.rounds()).isEqualTo(3);
    assertThat(outcome.settled()).isTrue();
    assertThat(outcome.lastRoundJitCores()).containsExactly(0.0, 0.0);
    assertThat(roundWindows).hasSize(3).allMatch(JitSettling.ROUND::equals);
  }

  @Test
  void aJitThatNeverGoesQuietEndsTheWarmUpAfterTheLastRoundAndSaysSo() throws Exception {
    JitSettling.Outcome outcome = JitSettling.run(rounds(List.<long[]>of(new long[] {0, 1})), LoadProfile.of(1500),
        List.of(NODE_1, NODE_2), JitSettling.MAX_ROUNDS, this::threadsOf);

    assertThat(outcome.rounds()).isEqualTo(JitSettling.MAX_ROUNDS);
    assertThat(outcome.settled()).isFalse();
    assertThat(outcome.lastRoundJitCores().get(0)).isZero();
    assertThat(outcome.lastRoundJitCores().get(1)).isPositive();
    assertThat(roundWindows).hasSize(JitSettling.MAX_ROUNDS);
  }

  @Test
  void asManyRoundsAsTheUncappedWarmUpsFirstPart_atLeastOne_atMostSix() {
    assertThat(JitSettling.roundsFor(Duration.ofSeconds(60))).isEqualTo(6);
    assertThat(JitSettling.roundsFor(Duration.ofSeconds(15))).as("--quick").isEqualTo(1);
    assertThat(JitSettling.roundsFor(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(JitSettling.roundsFor(Duration.ofSeconds(600))).isEqualTo(JitSettling.MAX_ROUNDS);
  }
}
