package io.tandem.benchmarks.replication;

/**
 * What one process reported at one instant of its own: its monotonic clock, the CPU time its JVM used so far (every
 * thread, user + system) and the updates it completed so far (owner) or handled (buddy).
 */
record Mark(long nanoTime, long cpuNanos, long updates) {

  /** The change from {@code start} to this mark; the clock, the CPU time and the count must not go backwards. */
  ProcessWindow since(Mark start) {
    long elapsed = nanoTime - start.nanoTime;
    long cpu = cpuNanos - start.cpuNanos;
    long count = updates - start.updates;
    if (elapsed <= 0 || cpu < 0 || count < 0) {
      throw new IllegalArgumentException("marks out of order: " + start + " then " + this);
    }
    return new ProcessWindow(elapsed, cpu, count);
  }
}
