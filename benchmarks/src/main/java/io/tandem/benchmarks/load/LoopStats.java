package io.tandem.benchmarks.load;

import org.HdrHistogram.Histogram;

/**
 * What one event loop recorded over the window.
 *
 * <p>Implementation notes: written only by its loop's thread while it runs; read by the driver after joining that
 * thread, which orders the reads after every write. Histograms auto-resize, so no latency is ever out of range.
 */
final class LoopStats {

  static final long UNKNOWN = -1;

  final Histogram responseMicros = new Histogram(3);
  final Histogram sendLagMicros = new Histogram(3);
  final long[] errors = new long[ErrorKind.values().length];
  long requests;
  long connectionsOpened;
  long sessionsStarted;
  long busyNanos;
  long cpuNanos = UNKNOWN;
  long processCpuNanos = UNKNOWN;

  void success(long latencyNanos) {
    requests++;
    responseMicros.recordValue(Math.max(0, latencyNanos / 1_000));
  }

  void error(ErrorKind kind) {
    requests++;
    errors[kind.ordinal()]++;
  }

  void sendLag(long lagNanos) {
    sendLagMicros.recordValue(Math.max(0, lagNanos / 1_000));
  }
}
