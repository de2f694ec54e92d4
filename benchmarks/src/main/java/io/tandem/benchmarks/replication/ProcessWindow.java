package io.tandem.benchmarks.replication;

/**
 * One process over the measured window, between two of its own {@link Mark}s. Each process's figures are divided by
 * its own count over its own window, so the moment a capped process answers the mark (up to a CFS period late)
 * shifts both numerator and denominator alike.
 *
 * @param elapsedNanos between the two marks, on the process's monotonic clock
 * @param cpuNanos CPU time the process used between them
 * @param updates updates it completed (owner) or handled (buddy) between them
 */
record ProcessWindow(long elapsedNanos, long cpuNanos, long updates) {

  ProcessWindow {
    if (elapsedNanos <= 0 || cpuNanos < 0 || updates < 0) {
      throw new IllegalArgumentException("window of " + elapsedNanos + " ns, " + cpuNanos + " ns CPU, " + updates + " updates");
    }
  }

  double updatesPerSecond() {
    return updates * 1e9 / elapsedNanos;
  }

  /** CPU microseconds per update; NaN without updates. */
  double cpuMicrosPerUpdate() {
    return updates == 0 ? Double.NaN : cpuNanos / 1e3 / updates;
  }

  /** Average cores used over the window. */
  double cores() {
    return (double) cpuNanos / elapsedNanos;
  }
}
