package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.util.Map;

/**
 * One node's counters at one instant; two snapshots bracket a measured window.
 *
 * @param cpuNanos CPU time of the node's JVM so far, -1 when unknown
 * @param bytesReplicated Tandem's bytes replicated so far, -1 for other managers
 * @param replicationFailures Tandem's acknowledgement timeouts, send failures and async queue overflows so far, -1
 *     for other managers: a superset of the 200s whose change was not on two nodes when answered (in SYNC a timeout
 *     or failure is re-sent and may still end in a 200 that was replicated, or in a 503, which the driver counts)
 * @param failureLines log lines reporting a failure so far (see {@link BenchNode#failureLines()})
 * @param throttledPeriods CFS periods in which the node ran out of quota so far, -1 without a cgroup
 * @param transport Tandem's transport figures so far (unknown for other managers)
 */
record NodeSnapshot(long cpuNanos, long bytesReplicated, long replicationFailures, long failureLines, long throttledPeriods,
    TransportBatching transport) {

  /** A snapshot without transport figures. */
  NodeSnapshot(long cpuNanos, long bytesReplicated, long replicationFailures, long failureLines, long throttledPeriods) {
    this(cpuNanos, bytesReplicated, replicationFailures, failureLines, throttledPeriods, TransportBatching.UNKNOWN);
  }

  static NodeSnapshot of(BenchNode node, CpuCap cap, String group) throws IOException, InterruptedException {
    Map<String, String> figures = node.figures();
    return new NodeSnapshot(node.cpuNanos(), counter(figures, "tandem.BytesReplicated"),
        sum(sum(counter(figures, "tandem.AckTimeouts"), counter(figures, "tandem.SendFailures")),
            counter(figures, "tandem.AsyncOverflows")), node.failureLines(),
        cap.throttledPeriods(group), TransportBatching.of(figures));
  }

  private static long counter(Map<String, String> figures, String name) {
    String value = figures.get(name);
    return value == null ? -1 : Long.parseLong(value);
  }

  private static long sum(long a, long b) {
    return a < 0 || b < 0 ? -1 : a + b;
  }

  /** What happened between {@code earlier} and this snapshot; unknown (-1) stays unknown. */
  NodeSnapshot since(NodeSnapshot earlier) {
    return new NodeSnapshot(delta(cpuNanos, earlier.cpuNanos), delta(bytesReplicated, earlier.bytesReplicated),
        delta(replicationFailures, earlier.replicationFailures), delta(failureLines, earlier.failureLines),
        delta(throttledPeriods, earlier.throttledPeriods), transport.since(earlier.transport));
  }

  /** The two nodes' deltas together. */
  NodeSnapshot plus(NodeSnapshot other) {
    return new NodeSnapshot(sum(cpuNanos, other.cpuNanos), sum(bytesReplicated, other.bytesReplicated),
        sum(replicationFailures, other.replicationFailures), sum(failureLines, other.failureLines),
        sum(throttledPeriods, other.throttledPeriods), transport.plus(other.transport));
  }

  private static long delta(long now, long before) {
    return now < 0 || before < 0 ? -1 : now - before;
  }
}
