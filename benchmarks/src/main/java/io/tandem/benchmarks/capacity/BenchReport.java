package io.tandem.benchmarks.capacity;

import java.util.List;

/**
 * What one run of {@code ./tandem bench} measured, as written to {@code results.json}.
 *
 * @param command how to reproduce the run
 * @param summary one row per setup, ratios to the control
 * @param outcomes every setup in every repetition, with every step
 */
public record BenchReport(String command, String startedAt, String finishedAt, Environment environment,
    Parameters parameters, List<SetupSummary> summary, List<SetupOutcome> outcomes) {

  public BenchReport {
    summary = List.copyOf(summary);
    outcomes = List.copyOf(outcomes);
  }

  /**
   * Where it ran.
   *
   * @param cpuCap how the nodes were capped ({@link CpuCap#describe()})
   * @param capEnforced true for a cgroup quota, false for the taskset fallback
   */
  public record Environment(String cpuCap, boolean capEnforced, double capCores, long cfsPeriodMicros,
      int machineCores, String java, String tomcat, String os) {}

  /** What it asked of the nodes. */
  public record Parameters(List<String> setups, int repeats, int pagesPerSession, int attributeBytes,
      long thinkTimeMillis, double thinkJitter, long warmUpMillis, long windowMillis, long budgetMillis,
      int searchStartUsers, int searchMaxUsers, double searchGrowth, double searchResolution, int searchMaxSteps,
      int overheadUsers, int peakClients) {}
}
