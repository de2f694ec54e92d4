package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.load.LoadProfile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything one run of the benchmark is asked to do, validated before any node starts.
 *
 * @param setups what to compare, in the order of the first repetition (later repetitions rotate it)
 * @param repeats how many times every setup is measured
 * @param profile the growing-session workload; its users are set per step
 * @param nodeWarmUp load on a fresh pair before it is capped, unjudged, so the JIT has compiled before the cap
 * @param budget the p90 limit
 * @param cpuCores the cap of each node
 * @param cfsPeriod the CFS period of the cap
 * @param search how U* is searched
 * @param overheadUsers the fixed load at which every setup's overhead is measured
 * @param peakClients closed-loop clients of the peak step (no think time, one small attribute per request)
 * @param home {@code benchmarks/target}: the Tomcat distribution and the drop-in jar
 * @param results where the run's directory {@code <timestamp>/} goes
 * @param flightRecording whether each node records a JFR profile, written next to its logs when it stops
 */
record BenchSettings(List<Setup> setups, int repeats, LoadProfile profile, Duration nodeWarmUp, Duration budget,
    double cpuCores, Duration cfsPeriod, UserSearch search, int overheadUsers, int peakClients, Path home, Path results,
    boolean flightRecording) {

  BenchSettings {
    setups = List.copyOf(setups);
    List<String> violations = new ArrayList<>();
    if (setups.isEmpty()) {
      violations.add("setups: at least one");
    }
    if (setups.stream().distinct().count() != setups.size()) {
      violations.add("setups: each at most once, got " + setups.stream().map(Setup::name).toList());
    }
    if (repeats < 1 || repeats > 100) {
      violations.add("repeats = " + repeats + " (must be 1 to 100)");
    }
    if (budget.isNegative() || budget.isZero()) {
      violations.add("budget = " + budget + " (must be positive)");
    }
    if (nodeWarmUp.isNegative()) {
      violations.add("node warm-up = " + nodeWarmUp + " (must not be negative)");
    }
    if (overheadUsers < 1) {
      violations.add("overhead users = " + overheadUsers + " (must be at least 1)");
    }
    if (peakClients < 1) {
      violations.add("peak clients = " + peakClients + " (must be at least 1)");
    }
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("benchmark settings: " + String.join("; ", violations));
    }
  }

  /** The peak step: closed loop (no think time), and sessions that never end, so every request touches one. */
  LoadProfile peakProfile() {
    return profile.withUsers(peakClients).withThinkTime(Duration.ZERO, 0.0)
        .withPagesPerSession(LoadProfile.MAX_PAGES_PER_SESSION);
  }

  /** The setups of repetition {@code repeat} (from 1): the list rotated by one more place each time. */
  List<Setup> order(int repeat) {
    List<Setup> order = new ArrayList<>();
    for (int i = 0; i < setups.size(); i++) {
      order.add(setups.get((i + repeat - 1) % setups.size()));
    }
    return order;
  }
}
