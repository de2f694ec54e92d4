package io.tandem.core.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationMode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The deterministic simulation's fixed seed set, run by every build: {@value #DEFAULT_SEEDS} schedules (or {@code
 * -Dtandem.simulation.seeds=N}) of the real engine under seeded faults, each judged by the {@link Checker}, and the
 * first {@value #DEFAULT_ASYNC_SEEDS} of them again with the engines in ASYNC mode (or {@code
 * -Dtandem.simulation.asyncSeeds=N}), judged by what that mode promises.
 *
 * <p>A violation of any kind fails the build, naming the seed and the command that replays it, unless its kind is in
 * {@link #OPEN}: a gap written in docs/protocol.md 11.3 and not closed yet (none now).
 */
@ExtendWith(QuietEngineLogs.class)
class OwnershipSimulationTest {
  static final int DEFAULT_SEEDS = 2_000;
  static final int DEFAULT_ASYNC_SEEDS = 1_000;

  /**
   * The kinds of violation the engine still shows, each a gap written in docs/protocol.md 11.3, counted and printed
   * rather than failing the build; every other kind fails it. None now: a gap found later, and not fixed at once, is
   * written in 11.3 and its kind put here until it is.
   */
  static final Set<Checker.Kind> OPEN = EnumSet.noneOf(Checker.Kind.class);

  @Test
  void seedSet_breaksNoRuleTheEngineKeeps() {
    int seeds = Integer.getInteger("tandem.simulation.seeds", DEFAULT_SEEDS);
    int asyncSeeds = Integer.getInteger("tandem.simulation.asyncSeeds", DEFAULT_ASYNC_SEEDS);
    ConcurrentLinkedQueue<Schedule.Result> results = new ConcurrentLinkedQueue<>();
    // Each schedule is its own world on its own threads: two run at once, one per core. Seeds from `seeds` on stand
    // for the ASYNC runs of seeds 0 to asyncSeeds - 1.
    LongStream.range(0, seeds + asyncSeeds).parallel().forEach(n -> results.add(n < seeds
        ? Schedule.run(n, false) : Schedule.run(n - seeds, false, ReplicationMode.ASYNC)));

    Map<Checker.Kind, Integer> open = new EnumMap<>(Checker.Kind.class);
    List<String> broken = new ArrayList<>();
    long schedulesWithOpen = 0;
    for (Schedule.Result r : results) {
      boolean any = false;
      for (Checker.Violation v : r.violations()) {
        if (OPEN.contains(v.kind())) {
          open.merge(v.kind(), 1, Integer::sum);
          any = true;
        } else {
          broken.add("seed " + r.seed() + " (" + r.setup() + "): " + v + "\n    replay: ./tandem simulate --seed "
              + r.seed() + (r.setup().contains("ASYNC") ? " --async" : ""));
        }
      }
      schedulesWithOpen += any ? 1 : 0;
    }
    System.out.printf("Simulation: %d schedules (%d of them ASYNC); %d broke a rule the engine keeps; %d show open gaps:"
        + " %s%n", seeds + asyncSeeds, asyncSeeds, broken.size(), schedulesWithOpen, open);
    assertThat(results).hasSize(seeds + asyncSeeds);
    assertThat(broken).as("violations of rules the engine keeps").isEmpty();
  }

  @Test
  void aSeed_replaysTheSameRun() {
    for (long seed = 0; seed < 12; seed++) {
      Schedule.Result first = Schedule.run(seed, false);
      Schedule.Result again = Schedule.run(seed, false);
      assertThat(again.traceHash()).as("trace of seed %d", seed).isEqualTo(first.traceHash());
      assertThat(again.violations().stream().map(Object::toString).collect(Collectors.toList()))
          .isEqualTo(first.violations().stream().map(Object::toString).collect(Collectors.toList()));
    }
  }
}
