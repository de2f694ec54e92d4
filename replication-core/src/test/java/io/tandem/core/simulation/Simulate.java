package io.tandem.core.simulation;

import io.tandem.core.config.ReplicationMode;

import java.util.ArrayList;
import java.util.List;

/**
 * The simulation's command line: replays one seed with its trace, or soaks a range of seeds.
 *
 * <pre>
 *   ./tandem simulate --seed 1234            # one schedule, every message in its trace
 *   ./tandem simulate --soak 0 1000000       # seeds [0, 1000000): prints "N schedules, M violations"
 *   ./tandem simulate --soak 0 1000 --async  # the same schedules with the engines in ASYNC mode
 *   ./tandem simulate --seed 1234 --nemesis 1  # a seed found before the nemesis's second generation, as found
 * </pre>
 */
public final class Simulate {
  private Simulate() {}

  public static void main(String[] arguments) {
    List<String> list = new ArrayList<>(List.of(arguments));
    ReplicationMode mode = list.remove("--async") ? ReplicationMode.ASYNC : ReplicationMode.SYNC;
    int generation = Nemesis.CURRENT;
    int named = list.indexOf("--nemesis");
    if (named >= 0 && named + 1 < list.size()) {
      generation = Integer.parseInt(list.get(named + 1));
      list.subList(named, named + 2).clear();
    }
    String[] args = list.toArray(String[]::new);
    if (args.length == 2 && (args[0].equals("--seed") || args[0].equals("--legacy-seed"))) {
      long seed = Long.parseLong(args[1]);
      Schedule.Result r = args[0].equals("--seed") ? Schedule.run(seed, true, mode, generation) : Schedule.runLegacy(seed, true);
      System.out.println(r.traceTail());
      System.out.println();
      System.out.println("seed " + r.seed() + ": " + r.summary());
      System.out.println("trace hash " + Long.toHexString(r.traceHash()));
      r.violations().forEach(v -> System.out.println("VIOLATION " + v));
      System.exit(r.passed() ? 0 : 1);
    }
    if (args.length == 3 && args[0].equals("--soak")) {
      long from = Long.parseLong(args[1]);
      long to = Long.parseLong(args[2]);
      long started = System.nanoTime();
      List<Long> failed = new ArrayList<>();
      long violations = 0;
      for (long seed = from; seed < to; seed++) {
        Schedule.Result r = Schedule.run(seed, false, mode, generation);
        if (!r.passed()) {
          failed.add(seed);
          violations += r.violations().size();
          System.out.println("seed " + seed + " FAILED: " + r.summary());
          r.violations().forEach(v -> System.out.println("  " + v));
        }
        long done = seed - from + 1;
        if (done % 1000 == 0) {
          System.out.printf("%d schedules, %d failed, %.0f s%n", done, failed.size(), (System.nanoTime() - started) / 1e9);
        }
      }
      System.out.printf("seeds [%d, %d)%s, nemesis %d: %d schedules, %d violations (%d schedules failed) in %.0f s%n", from,
          to, mode == ReplicationMode.ASYNC ? " in ASYNC" : "", generation, to - from, violations, failed.size(), (System.nanoTime() - started) / 1e9);
      System.exit(failed.isEmpty() ? 0 : 1);
    }
    System.err.println("usage: Simulate --seed N | --legacy-seed N | --soak FROM TO   [--async: the engines in ASYNC mode]"
        + "   [--nemesis G: the faults of generation G, 1–" + Nemesis.CURRENT + ", default " + Nemesis.CURRENT + "]");
    System.exit(2);
  }
}
