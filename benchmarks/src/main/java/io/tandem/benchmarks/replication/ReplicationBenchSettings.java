package io.tandem.benchmarks.replication;

import io.tandem.core.config.Units;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Everything one run of the replication benchmark is asked to do, validated before any process starts; every
 * violation is reported at once, naming the option, the value and what is allowed.
 *
 * @param writers concurrent writer threads in the owner process, each updating its own session
 * @param attributeBytes size of the one attribute each update replaces (characters of a Latin-1 string)
 * @param warmUp load on a fresh, uncapped pair before the cap, so the JIT compiles before it (unmeasured)
 * @param settle load under the cap before the window opens (unmeasured)
 * @param window the measured window
 * @param cpuCores the cap of each process, in cores
 * @param cfsPeriod the CFS period of the cap
 * @param variants what to run, in order
 * @param ackTimeout Tandem's ack timeout (and the transport's request timeout, as the Tomcat manager sets it)
 * @param home {@code benchmarks/target}: where the processes' logs (and JFR recordings) go
 * @param results where the run's {@code <timestamp>-replication/} directory goes
 * @param flightRecording whether every process records a JFR profile
 */
public record ReplicationBenchSettings(int writers, int attributeBytes, Duration warmUp, Duration settle, Duration window,
    double cpuCores, Duration cfsPeriod, List<Variant> variants, Duration ackTimeout, Path home, Path results,
    boolean flightRecording) {

  static final int MAX_WRITERS = 1024;
  static final int MAX_ATTRIBUTE_BYTES = 1 << 20;
  static final Duration MAX_WINDOW = Duration.ofHours(1);

  public ReplicationBenchSettings {
    variants = List.copyOf(variants);
    List<String> violations = violations(writers, attributeBytes, warmUp, settle, window, cpuCores, cfsPeriod, variants,
        ackTimeout);
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException(message(violations));
    }
  }

  /** Options as typed on the command line, durations with their units ({@code 500ms}, {@code 10s}). */
  record Raw(int writers, int attributeBytes, String warmUp, String settle, String window, double cpuCores,
      String cfsPeriod, List<String> variants, String ackTimeout, Path home, Path results, boolean flightRecording) {}

  /** Parses and validates {@code raw}; a value that does not parse and a value out of range are reported together. */
  static ReplicationBenchSettings parse(Raw raw) {
    List<String> violations = new ArrayList<>();
    Duration warmUp = duration("--warm-up", raw.warmUp(), violations);
    Duration settle = duration("--settle", raw.settle(), violations);
    Duration window = duration("--window", raw.window(), violations);
    Duration period = duration("--cfs-period", raw.cfsPeriod(), violations);
    Duration ackTimeout = duration("--ack-timeout", raw.ackTimeout(), violations);
    List<Variant> variants = new ArrayList<>();
    for (String name : raw.variants()) {
      try {
        variants.add(Variant.named(name));
      } catch (IllegalArgumentException e) {
        violations.add("--variants: " + e.getMessage());
      }
    }
    if (raw.variants().isEmpty()) {
      violations.add("--variants: (none) (name at least one of " + Variant.labels() + ")");
    }
    // Range checks on what did parse; what did not is already reported.
    violations.addAll(violations(raw.writers(), raw.attributeBytes(), warmUp, settle, window, raw.cpuCores(), period,
        raw.variants().isEmpty() || variants.size() != raw.variants().size() ? null : variants, ackTimeout));
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException(message(violations));
    }
    return new ReplicationBenchSettings(raw.writers(), raw.attributeBytes(), warmUp, settle, window, raw.cpuCores(),
        period, variants, ackTimeout, raw.home(), raw.results(), raw.flightRecording());
  }

  private static Duration duration(String option, String text, List<String> violations) {
    if (text == null) {
      violations.add(option + ": missing (a duration such as 500ms or 10s)");
      return null;
    }
    try {
      return Units.parseDuration(text);
    } catch (IllegalArgumentException e) {
      violations.add(option + " = '" + text + "': " + e.getMessage());
      return null;
    }
  }

  /** Range checks; a null value was not parsed (and is reported elsewhere), so it is skipped here. */
  private static List<String> violations(int writers, int attributeBytes, Duration warmUp, Duration settle,
      Duration window, double cpuCores, Duration cfsPeriod, List<Variant> variants, Duration ackTimeout) {
    List<String> v = new ArrayList<>();
    if (writers < 1 || writers > MAX_WRITERS) {
      v.add("--writers = " + writers + " (must be 1 to " + MAX_WRITERS + ")");
    }
    if (attributeBytes < 1 || attributeBytes > MAX_ATTRIBUTE_BYTES) {
      v.add("--attribute-bytes = " + attributeBytes + " (must be 1 to " + MAX_ATTRIBUTE_BYTES + ")");
    }
    if (warmUp != null && warmUp.isNegative()) {
      v.add("--warm-up = " + Units.format(warmUp) + " (must not be negative)");
    }
    if (settle != null && settle.isNegative()) {
      v.add("--settle = " + Units.format(settle) + " (must not be negative)");
    }
    if (window != null && (window.isZero() || window.isNegative() || window.compareTo(MAX_WINDOW) > 0)) {
      v.add("--window = " + Units.format(window) + " (must be more than 0 and at most " + Units.format(MAX_WINDOW) + ")");
    }
    if (!(cpuCores > 0 && cpuCores <= 64)) {
      v.add("--cpu = " + cpuCores + " (cores per process: more than 0, at most 64)");
    }
    if (cfsPeriod != null) {
      if (cfsPeriod.compareTo(Duration.ofMillis(1)) < 0 || cfsPeriod.compareTo(Duration.ofSeconds(1)) > 0) {
        v.add("--cfs-period = " + Units.format(cfsPeriod) + " (the kernel accepts 1ms to 1s)");
      } else if (cpuCores > 0 && cpuCores * cfsPeriod.toNanos() < 1_000_000) {
        v.add(String.format(Locale.ROOT, "--cpu × --cfs-period = %s × %s is a quota below the kernel's 1 ms minimum "
            + "(raise either)", cpuCores, Units.format(cfsPeriod)));
      }
    }
    if (variants != null && variants.stream().distinct().count() != variants.size()) {
      v.add("--variants = " + variants.stream().map(Variant::label).toList() + " (each at most once)");
    }
    if (ackTimeout != null && (ackTimeout.isZero() || ackTimeout.isNegative())) {
      v.add("--ack-timeout = " + Units.format(ackTimeout) + " (must be positive)");
    }
    return v;
  }

  private static String message(List<String> violations) {
    return "replication benchmark settings: " + String.join("; ", violations);
  }

  /**
   * The floors exchange frames of Tandem's sizes; without a Tandem run in the same invocation, these sizes are
   * computed from the wire format instead of measured.
   */
  boolean measuresTandem() {
    return variants.contains(Variant.TANDEM);
  }
}
