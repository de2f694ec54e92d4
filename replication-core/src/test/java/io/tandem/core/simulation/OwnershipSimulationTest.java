package io.tandem.core.simulation;

import static org.assertj.core.api.Assertions.assertThat;

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
 * -Dtandem.simulation.seeds=N}) of the real engine under seeded faults, each judged by the {@link Checker}.
 *
 * <p>The engine does not yet keep every rule the checker holds it to: docs/protocol.md 11.3 lists each kind of
 * violation still open, with the gap behind it. Those kinds ({@link
 * #OPEN}) are counted and printed here; every other kind fails the build, naming the seed and the command that
 * replays it. Closing a gap removes its kind from {@link #OPEN}, so that the build holds the engine to it from then on.
 */
@ExtendWith(QuietEngineLogs.class)
class OwnershipSimulationTest {
  static final int DEFAULT_SEEDS = 2_000;

  /**
   * The kinds of violation the engine still shows, each a gap written in docs/protocol.md 11.3: to be closed by the
   * ballot change and the fixes of issue 27, and then removed from here.
   */
  static final Set<Checker.Kind> OPEN = EnumSet.of(
      Checker.Kind.LOST_SESSION, // 11.3.1: a migration lets go before the requester holds the session
      Checker.Kind.INVALIDATED_SERVED, // 11.3.4: the heir adopts from a live owner that a view misjudged
      Checker.Kind.OWNERS_AFTER_SETTLE, // 11.3.1, seen at the end
      Checker.Kind.NO_COPY_AFTER_SETTLE, // 11.3.1, seen at the end
      Checker.Kind.UNAVAILABLE_AFTER_SETTLE); // 11.3.3: a backup nobody adopts, after 11.3.1

  @Test
  void seedSet_breaksNoRuleTheEngineKeeps() {
    int seeds = Integer.getInteger("tandem.simulation.seeds", DEFAULT_SEEDS);
    ConcurrentLinkedQueue<Schedule.Result> results = new ConcurrentLinkedQueue<>();
    // Each schedule is its own world on its own threads: two run at once, one per core.
    LongStream.range(0, seeds).parallel().forEach(seed -> results.add(Schedule.run(seed, false)));

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
              + r.seed());
        }
      }
      schedulesWithOpen += any ? 1 : 0;
    }
    System.out.printf("Simulation: %d schedules; %d broke a rule the engine keeps; %d show open gaps: %s%n", seeds,
        broken.size(), schedulesWithOpen, open);
    assertThat(results).hasSize(seeds);
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
