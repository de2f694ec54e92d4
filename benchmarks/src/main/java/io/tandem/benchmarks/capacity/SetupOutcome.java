package io.tandem.benchmarks.capacity;

import java.util.List;

/**
 * Everything one setup measured in one repetition.
 *
 * @param setup {@link Setup#name()}
 * @param label {@link Setup#label()}
 * @param repeat which repetition, from 1
 * @param uStar users within the budget (see {@link UserSearch.Outcome#uStar()})
 * @param strictUStar users within the budget with no replication failure
 * @param firstFailure the smallest user count above U* that failed; 0 when none did
 * @param lowerBound U* is only a lower bound: no step above it failed
 * @param search the U* search's steps, in the order run
 * @param overhead the step at the fixed load every setup gets, or null when it was not run
 * @param peak the closed-loop step of the minimal session page, or null when it was not run
 * @param failure why the setup could not be measured, or null
 * @param jitSettling the capped warm-up before the search, or null when it was not run
 */
public record SetupOutcome(String setup, String label, int repeat, int uStar, int strictUStar, int firstFailure,
    boolean lowerBound, List<StepRecord> search, StepRecord overhead, StepRecord peak, String failure,
    JitSettling.Outcome jitSettling) {

  public SetupOutcome {
    search = List.copyOf(search);
  }

  static SetupOutcome failed(Setup setup, int repeat, String why) {
    return new SetupOutcome(setup.name(), setup.label(), repeat, 0, 0, 0, false, List.of(), null, null, why, null);
  }
}
