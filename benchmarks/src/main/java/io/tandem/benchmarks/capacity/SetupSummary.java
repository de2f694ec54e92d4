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
 */
public record SetupSummary(String setup, String label, List<Integer> uStars, double medianUStar, boolean uStarIsLowerBound,
    double medianStrictUStar, double uStarRatio, double strictUStarRatio, double peakThroughput, double peakRatio,
    double cpuMillisPerRequest, double bytesReplicatedPerRequest, Double addedP50Millis, Double addedP99Millis,
    List<String> failures) {

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
      List<Double> addedP50 = new ArrayList<>();
      List<Double> addedP99 = new ArrayList<>();
      for (SetupOutcome outcome : mine) {
        control.stream().filter(c -> c.repeat() == outcome.repeat() && c.overhead() != null).findFirst()
            .ifPresent(c -> {
              if (outcome.overhead() != null) {
                addedP50.add(outcome.overhead().p50Millis() - c.overhead().p50Millis());
                addedP99.add(outcome.overhead().p99Millis() - c.overhead().p99Millis());
              }
            });
      }
      summaries.add(new SetupSummary(setup.name(), setup.label(), mine.stream().map(SetupOutcome::uStar).toList(),
          uStar, mine.stream().anyMatch(SetupOutcome::lowerBound), strict, ratio(uStar, controlUStar),
          ratio(strict, controlStrict), peak, ratio(peak, controlPeak),
          median(mine, o -> o.overhead() == null ? -1 : o.overhead().cpuMillisPerRequest()),
          median(mine, o -> o.overhead() == null ? -1 : o.overhead().bytesReplicatedPerRequest()),
          medianOf(addedP50), medianOf(addedP99),
          mine.stream().filter(o -> o.failure() != null).map(o -> "repeat " + o.repeat() + ": " + o.failure()).toList()));
    }
    return summaries;
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
