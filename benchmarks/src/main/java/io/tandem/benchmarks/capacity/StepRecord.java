package io.tandem.benchmarks.capacity;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.tandem.benchmarks.load.ErrorKind;
import io.tandem.benchmarks.load.StepResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One measured step of one setup, as the report keeps it: what the users saw, what the nodes spent and whether the
 * step was within the budget.
 *
 * @param setup {@link Setup#name()}
 * @param repeat which repetition of the run, from 1
 * @param phase {@code coarse} or {@code fine} (the U* search), {@code overhead} (the fixed load) or {@code peak}
 *     (closed loop, no think time)
 * @param users virtual users (for {@code peak}: concurrent clients)
 * @param requests requests intended inside the window that ended
 * @param errors failed requests; {@code errorsByKind} names the kinds that occurred
 * @param throughput 2xx responses per second of window
 * @param p50Millis median response time, from the intended send time
 * @param p90Millis the budgeted percentile
 * @param serverCpuCores CPU both nodes used over the window, in cores; -1 when unknown
 * @param maxNodeCpuCores CPU of the busier node, in cores; -1 when unknown
 * @param cpuMillisPerRequest server CPU (both nodes) per successful request; -1 when unknown
 * @param bytesReplicatedPerRequest Tandem's replicated bytes (both nodes) per successful request; -1 for other
 *     managers
 * @param replicationFailures replication that failed or timed out while the client got its answer: Tandem's
 *     acknowledgement timeouts and send failures, or for Tomcat's managers the failures they logged
 * @param throttledPeriods CFS periods in which a node ran out of quota; -1 without a cgroup
 * @param driverCpuCores the load driver's own CPU over the window
 * @param driverValid false when the driver did not keep up, so the latencies describe it, not the nodes
 * @param withinBudget p90 within the budget, no error, a valid driver and no node over the CPU ceiling
 * @param strictlyWithinBudget within budget and no replication failure
 * @param notes why the step is not (strictly) within the budget; empty when it is
 * @param threadCpu where both nodes' CPU went in the window, by thread group; only for the fixed-load step (null, and
 *     left out of {@code results.json}, for the others, or where the nodes' threads could not be read)
 */
public record StepRecord(
    String setup,
    int repeat,
    String phase,
    int users,
    long requests,
    long errors,
    Map<String, Long> errorsByKind,
    double throughput,
    double p50Millis,
    double p90Millis,
    double p99Millis,
    double maxMillis,
    double serverCpuCores,
    double maxNodeCpuCores,
    double cpuMillisPerRequest,
    double bytesReplicatedPerRequest,
    long replicationFailures,
    long throttledPeriods,
    double driverCpuCores,
    boolean driverValid,
    boolean withinBudget,
    boolean strictlyWithinBudget,
    List<String> notes,
    @JsonInclude(JsonInclude.Include.NON_NULL) ThreadCpu threadCpu,
    @JsonInclude(JsonInclude.Include.NON_NULL) TransportBatching transport) {

  public StepRecord {
    errorsByKind = Map.copyOf(errorsByKind);
    notes = List.copyOf(notes);
  }

  /** A step without thread or transport figures. */
  public StepRecord(String setup, int repeat, String phase, int users, long requests, long errors,
      Map<String, Long> errorsByKind, double throughput, double p50Millis, double p90Millis, double p99Millis,
      double maxMillis, double serverCpuCores, double maxNodeCpuCores, double cpuMillisPerRequest,
      double bytesReplicatedPerRequest, long replicationFailures, long throttledPeriods, double driverCpuCores,
      boolean driverValid, boolean withinBudget, boolean strictlyWithinBudget, List<String> notes, ThreadCpu threadCpu) {
    this(setup, repeat, phase, users, requests, errors, errorsByKind, throughput, p50Millis, p90Millis, p99Millis,
        maxMillis, serverCpuCores, maxNodeCpuCores, cpuMillisPerRequest, bytesReplicatedPerRequest, replicationFailures,
        throttledPeriods, driverCpuCores, driverValid, withinBudget, strictlyWithinBudget, notes, threadCpu, null);
  }

  /**
   * Judges one step.
   *
   * @param nodes the two nodes' counters over the window, in node order
   * @param setupReplicates whether replication failures can occur at all (not for the control)
   */
  static StepRecord judge(String setup, int repeat, String phase, StepResult result, List<NodeSnapshot> nodes,
      boolean setupReplicates, Duration budget, CpuCap cap, boolean tomcatManager) {
    double windowNanos = result.window().toNanos();
    long successes = result.successes();
    NodeSnapshot total = nodes.get(0).plus(nodes.get(1));
    double serverCores = total.cpuNanos() < 0 ? -1 : total.cpuNanos() / windowNanos;
    double maxNodeCores = nodes.stream().mapToDouble(n -> n.cpuNanos() < 0 ? -1 : n.cpuNanos() / windowNanos)
        .max().orElse(-1);
    long failures = !setupReplicates ? 0
        : tomcatManager ? total.failureLines() : total.replicationFailures();

    List<String> notes = new ArrayList<>();
    double p90 = millis(result.responseTime().p90());
    if (result.requests() == 0) {
      notes.add("no request completed in the window");
    }
    if (p90 > budget.toNanos() / 1e6) {
      notes.add(String.format(java.util.Locale.ROOT, "p90 %.0f ms over the %d ms budget", p90, budget.toMillis()));
    }
    if (result.errorCount() > 0) {
      notes.add(result.errorCount() + " failed requests");
    }
    if (!result.valid()) {
      notes.add("driver did not keep up: " + String.join("; ", result.invalidReasons()));
    }
    boolean overCeiling = maxNodeCores >= 0 && cap.overCeiling(maxNodeCores);
    if (overCeiling) {
      notes.add(String.format(java.util.Locale.ROOT, "a node used %.2f cores, over the %.2f-core ceiling",
          maxNodeCores, cap.cores()));
    }
    boolean within = notes.isEmpty();
    if (failures > 0) {
      notes.add(failures + (tomcatManager ? " failures logged by Tomcat's cluster (SEVERE, or send failing)" : " replication failures (ack timeouts or send failures)"));
    } else if (failures < 0) {
      notes.add("replication failures unknown");
    }
    if (!tomcatManager && total.failureLines() > 0) {
      notes.add(total.failureLines() + " failures logged (SEVERE)");
    }
    Map<String, Long> errorsByKind = new TreeMap<>();
    for (ErrorKind kind : ErrorKind.values()) {
      if (result.errors(kind) > 0) {
        errorsByKind.put(kind.name(), result.errors(kind));
      }
    }
    return new StepRecord(setup, repeat, phase, result.users(), result.requests(), result.errorCount(), errorsByKind,
        result.throughput(), millis(result.responseTime().p50()), p90, millis(result.responseTime().p99()),
        millis(result.responseTime().max()), serverCores, maxNodeCores,
        successes == 0 || total.cpuNanos() < 0 ? -1 : total.cpuNanos() / 1e6 / successes,
        successes == 0 || total.bytesReplicated() < 0 ? -1 : (double) total.bytesReplicated() / successes,
        failures, total.throttledPeriods(), Double.isNaN(result.driverCpu()) ? -1 : result.driverCpu(), result.valid(), within, within && failures == 0,
        notes, null, total.transport().known() ? total.transport() : null);
  }

  /** This step with {@code threads} as where its CPU went. */
  StepRecord withThreadCpu(ThreadCpu threads) {
    return new StepRecord(setup, repeat, phase, users, requests, errors, errorsByKind, throughput, p50Millis, p90Millis,
        p99Millis, maxMillis, serverCpuCores, maxNodeCpuCores, cpuMillisPerRequest, bytesReplicatedPerRequest,
        replicationFailures, throttledPeriods, driverCpuCores, driverValid, withinBudget, strictlyWithinBudget, notes,
        threads, transport);
  }

  private static double millis(Duration d) {
    return d.toNanos() / 1e6;
  }
}
