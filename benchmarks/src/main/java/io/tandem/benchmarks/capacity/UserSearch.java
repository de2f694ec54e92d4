package io.tandem.benchmarks.capacity;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Finds U*, the largest number of users a setup serves within the budget: coarse steps that grow (or, when the first
 * step already fails, shrink) by a factor until the verdict flips, then bisection until the bracket is narrower than
 * the resolution. Only steps decide; the search holds no timing of its own, so it is tested with scripted verdicts.
 *
 * @param startUsers the first step
 * @param maxUsers the search stops growing here (and reports that it did)
 * @param growth factor between coarse steps, more than 1
 * @param resolution the bisection stops when the bracket is narrower than this fraction of the lower bound
 * @param minGap ... or narrower than this many users
 * @param maxSteps bound on the steps of one search, coarse and fine together
 */
record UserSearch(int startUsers, int maxUsers, double growth, double resolution, int minGap, int maxSteps) {

  /** Runs one step of {@code users} users in a phase ({@code coarse} or {@code fine}). */
  @FunctionalInterface
  interface Step {
    StepRecord run(String phase, int users) throws Exception;
  }

  /**
   * What one search found.
   *
   * @param uStar the largest user count that was within the budget; 0 when none was
   * @param strictUStar the largest user count up to U* that was within the budget with no replication failure
   * @param firstFailure the smallest user count above U* that failed; 0 when none failed
   * @param lowerBound no step above U* failed (the search stopped at {@code maxUsers} or ran out of steps), so U*
   *     is only a lower bound
   * @param steps every step, in the order run
   */
  record Outcome(int uStar, int strictUStar, int firstFailure, boolean lowerBound, List<StepRecord> steps) {
    Outcome {
      steps = List.copyOf(steps);
    }
  }

  UserSearch {
    if (startUsers < 1 || maxUsers < startUsers || !(growth > 1) || !(resolution > 0) || minGap < 1 || maxSteps < 1) {
      throw new IllegalArgumentException("search: startUsers=" + startUsers + " maxUsers=" + maxUsers + " growth="
          + growth + " resolution=" + resolution + " minGap=" + minGap + " maxSteps=" + maxSteps
          + " (need 1 <= startUsers <= maxUsers, growth > 1, resolution > 0, minGap >= 1, maxSteps >= 1)");
    }
  }

  Outcome run(Step step, Consumer<StepRecord> progress) throws Exception {
    List<StepRecord> steps = new ArrayList<>();
    int pass = 0;
    int fail = 0;
    int users = startUsers;
    while (steps.size() < maxSteps) {
      StepRecord record = record(step.run("coarse", users), steps, progress);
      if (record.withinBudget()) {
        pass = users;
        if (fail > 0) {
          break;
        }
        if (users >= maxUsers) {
          break;
        }
        users = Math.min(maxUsers, (int) Math.ceil(users * growth));
      } else {
        fail = users;
        if (pass > 0 || users == 1) {
          break;
        }
        users = Math.max(1, (int) Math.floor(users / growth));
      }
    }
    while (fail > 0 && steps.size() < maxSteps && fail - pass > Math.max(minGap, pass * resolution)) {
      int middle = pass + (fail - pass) / 2;
      StepRecord record = record(step.run("fine", middle), steps, progress);
      if (record.withinBudget()) {
        pass = middle;
      } else {
        fail = middle;
      }
    }
    int ceiling = pass;
    int strict = steps.stream().filter(s -> s.strictlyWithinBudget() && s.users() <= ceiling)
        .mapToInt(StepRecord::users).max().orElse(0);
    return new Outcome(pass, strict, fail, fail == 0, steps);
  }

  private static StepRecord record(StepRecord record, List<StepRecord> steps, Consumer<StepRecord> progress) {
    steps.add(record);
    progress.accept(record);
    return record;
  }
}
