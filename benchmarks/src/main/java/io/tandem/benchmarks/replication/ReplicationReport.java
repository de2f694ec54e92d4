package io.tandem.benchmarks.replication;

import java.util.List;

/**
 * One run of the replication benchmark, as {@code results.json} holds it.
 *
 * @param command the command line
 * @param startedAt ISO-8601
 * @param finishedAt ISO-8601
 * @param machine cores, OS and Java of the machine
 * @param cpuCap how each process was capped ({@code CpuCap.describe()})
 * @param capEnforced true for the cgroup quota, false for the taskset fallback
 * @param parameters the settings
 * @param frameSizes the bytes per update each way, and whether they were measured or computed
 * @param outcomes every variant run, in order
 * @param ratios Tandem's (SYNC) CPU per update over each floor's
 */
record ReplicationReport(String command, String startedAt, String finishedAt, String machine, String cpuCap,
    boolean capEnforced, Parameters parameters, FrameSizes frameSizes, List<VariantOutcome> outcomes,
    List<Ratio> ratios) {

  record Parameters(int writers, int attributeBytes, long warmUpMillis, long settleMillis, long windowMillis,
      double cpuCores, long cfsPeriodMillis, long ackTimeoutMillis, List<String> variants) {

    static Parameters of(ReplicationBenchSettings s) {
      return new Parameters(s.writers(), s.attributeBytes(), s.warmUp().toMillis(), s.settle().toMillis(),
          s.window().toMillis(), s.cpuCores(), s.cfsPeriod().toMillis(), s.ackTimeout().toMillis(),
          s.variants().stream().map(Variant::label).toList());
    }
  }

  /**
   * Tandem's CPU per update over a floor's: for the pair (the figure of merit), and per process.
   *
   * @param floor the floor's label
   */
  record Ratio(String floor, Double pair, Double owner, Double buddy) {}

  /** The ratios of Tandem to every floor that was measured, when Tandem was. */
  static List<Ratio> ratios(List<VariantOutcome> outcomes) {
    VariantOutcome tandem = outcomes.stream().filter(o -> o.variant().equals(Variant.TANDEM.label()) && o.measured())
        .findFirst().orElse(null);
    if (tandem == null) {
      return List.of();
    }
    VariantFigures t = tandem.figures();
    return outcomes.stream().filter(o -> Variant.named(o.variant()).isFloor() && o.measured())
        .map(o -> new Ratio(o.variant(), VariantOutcome.finite(t.ratioTo(o.figures())),
            VariantOutcome.finite(t.ownerRatioTo(o.figures())), VariantOutcome.finite(t.buddyRatioTo(o.figures()))))
        .toList();
  }
}
