package io.tandem.benchmarks.capacity;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One setup over every repetition, beside the control: medians, and ratios to the control's medians (the figure GlassFish
 * published). Fields that could not be measured are -1.
 *
 * @param uStars U* of each repetition, in order
 * @param uStarRatio median U* over the control's median U*
 * @param peakThroughput median closed-loop 2xx responses per second
 * @param cpuMillisPerRequest median server CPU per request at the fixed load
 * @param bytesReplicatedPerRequest median replicated bytes per request at the fixed load (Tandem only)
 * @param addedP50Millis median of (this setup's p50 − the control's p50) at the fixed load, same repetition; null when
 *     not measured
 * @param addedP99Millis the same for p99
 * @param replicationCpuMicrosPerRequest median of (this setup's server CPU per request − the control's) at the fixed
 *     load, both nodes, same repetition, in µs: what replicating costs per request; 0 for the control, null when not
 *     measured (no control in the run, no fixed-load step in a repetition the control also ran, CPU unknown)
 */
public record SetupSummary(String setup, String label, List<Integer> uStars, double medianUStar, boolean uStarIsLowerBound,
    double medianStrictUStar, double uStarRatio, double strictUStarRatio, double peakThroughput, double peakRatio,
    double cpuMillisPerRequest, double bytesReplicatedPerRequest, Double addedP50Millis, Double addedP99Millis,
    Double replicationCpuMicrosPerRequest, List<String> failures) {

  public SetupSummary {
    uStars = List.copyOf(uStars);
    failures = List.copyOf(failures);
  }

  /** Summaries of every setup in {@code order}, against the outcomes of {@code control}. */
  static List<SetupSummary> of(List<Setup> order, List<SetupOutcome> outcomes) {
    List<SetupOutcome> control = outcomes.stream().filter(o -> o.setup().equals(Setup.CONTROL.name())).toList();
    double controlUStar = median(control, o -> o.failure() == null ? o.uStar() : -1);
    double controlStrict = median(control, o -> o.failure() == null ? o.strictUStar() : -1);
    double controlPeak = median(control, o -> o.peak() == null ? -1 : o.peak().throughput());
    List<SetupSummary> summaries = new ArrayList<>();
    for (Setup setup : order) {
      List<SetupOutcome> mine = outcomes.stream().filter(o -> o.setup().equals(setup.name())).toList();
      double uStar = median(mine, o -> o.failure() == null ? o.uStar() : -1);
      double strict = median(mine, o -> o.failure() == null ? o.strictUStar() : -1);
      double peak = median(mine, o -> o.peak() == null ? -1 : o.peak().throughput());
      summaries.add(new SetupSummary(setup.name(), setup.label(), mine.stream().map(SetupOutcome::uStar).toList(),
          uStar, mine.stream().anyMatch(SetupOutcome::lowerBound), strict, ratio(uStar, controlUStar),
          ratio(strict, controlStrict), peak, ratio(peak, controlPeak),
          median(mine, o -> o.overhead() == null ? -1 : o.overhead().cpuMillisPerRequest()),
          median(mine, o -> o.overhead() == null ? -1 : o.overhead().bytesReplicatedPerRequest()),
          medianOf(overControl(mine, control, StepRecord::p50Millis)),
          medianOf(overControl(mine, control, StepRecord::p99Millis)),
          medianOf(overControl(mine, control, SetupSummary::cpuMicrosPerRequest)),
          mine.stream().filter(o -> o.failure() != null).map(o -> "repeat " + o.repeat() + ": " + o.failure()).toList()));
    }
    return summaries;
  }

  /**
   * What this outcome's fixed-load step measured over the control's in the same repetition, {@code value} of each
   * (a value below 0 is unknown); null when either step is missing or either value unknown.
   */
  static Double overControl(SetupOutcome outcome, SetupOutcome control, ToDoubleFunction<StepRecord> value) {
    if (outcome.overhead() == null || control == null || control.overhead() == null
        || control.repeat() != outcome.repeat()) {
      return null;
    }
    double mine = value.applyAsDouble(outcome.overhead());
    double theirs = value.applyAsDouble(control.overhead());
    return mine < 0 || theirs < 0 ? null : mine - theirs;
  }

  /** {@link #overControl(SetupOutcome, SetupOutcome, ToDoubleFunction)} for every repetition the control also ran. */
  private static List<Double> overControl(List<SetupOutcome> mine, List<SetupOutcome> control,
      ToDoubleFunction<StepRecord> value) {
    List<Double> differences = new ArrayList<>();
    for (SetupOutcome outcome : mine) {
      control.stream().filter(c -> c.repeat() == outcome.repeat()).findFirst()
          .map(c -> overControl(outcome, c, value)).ifPresent(differences::add);
    }
    return differences;
  }

  /** Server CPU per successful request at a step, both nodes, in µs; -1 when unknown. */
  static double cpuMicrosPerRequest(StepRecord step) {
    return step.cpuMillisPerRequest() < 0 ? -1 : step.cpuMillisPerRequest() * 1000;
  }

  private static double ratio(double value, double control) {
    return value < 0 || control <= 0 ? -1 : value / control;
  }

  /** Median of the known (non-negative) values; -1 when there are none. */
  static double median(List<SetupOutcome> outcomes, ToDoubleFunction<SetupOutcome> value) {
    return medianOfKnown(outcomes.stream().map(value::applyAsDouble).toList());
  }

  /** Median of the known (non-negative) values; -1 when there are none. */
  private static double medianOfKnown(List<Double> values) {
    Double median = medianOf(values.stream().filter(v -> v >= 0).toList());
    return median == null ? -1 : median;
  }

  /** Median, or null for no values (a difference of latencies may be negative, so -1 cannot mean unknown). */
  private static Double medianOf(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (sorted.length == 0) {
      return null;
    }
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}
