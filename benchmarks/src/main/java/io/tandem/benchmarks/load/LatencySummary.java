package io.tandem.benchmarks.load;

import java.time.Duration;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Percentiles of one latency histogram recorded in microseconds. HdrHistogram keeps three significant digits, so a
 * percentile is exact to 0.1 % of its value.
 */
public record LatencySummary(long count, Duration p50, Duration p90, Duration p99, Duration max) {

  public static final LatencySummary EMPTY = new LatencySummary(0, Duration.ZERO, Duration.ZERO, Duration.ZERO,
      Duration.ZERO);

  static LatencySummary ofMicros(Histogram histogram) {
    if (histogram.getTotalCount() == 0) {
      return EMPTY;
    }
    return new LatencySummary(histogram.getTotalCount(), micros(histogram.getValueAtPercentile(50.0)),
        micros(histogram.getValueAtPercentile(90.0)), micros(histogram.getValueAtPercentile(99.0)),
        micros(histogram.getMaxValue()));
  }

  private static Duration micros(long value) {
    return Duration.ofNanos(value * 1_000L);
  }

  @Override
  public String toString() {
    return "n=" + count + " p50=" + millis(p50) + " p90=" + millis(p90) + " p99=" + millis(p99) + " max="
        + millis(max);
  }

  private static String millis(Duration d) {
    return String.format(Locale.ROOT, "%.1fms", d.toNanos() / 1e6);
  }
}
