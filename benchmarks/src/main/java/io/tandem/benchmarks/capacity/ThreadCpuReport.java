package io.tandem.benchmarks.capacity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** Where the CPU goes at the fixed load ({@link ThreadCpu}): the table of {@code summary.md} and the console line. */
final class ThreadCpuReport {

  private ThreadCpuReport() {}

  /**
   * The section of {@code summary.md}: a row per setup and repetition whose fixed-load step counted its threads, a
   * column per group any of them had; empty when none did.
   */
  static String markdown(BenchReport report) {
    List<SetupOutcome> rows = report.outcomes().stream()
        .filter(o -> o.overhead() != null && o.overhead().threadCpu() != null).toList();
    if (rows.isEmpty()) {
      return "";
    }
    List<String> columns = ThreadGroups.ORDER.stream()
        .filter(group -> rows.stream().anyMatch(o -> o.overhead().threadCpu().group(group) != null)).toList();
    StringBuilder md = new StringBuilder();
    md.append("## Where the CPU goes at ").append(report.parameters().overheadUsers()).append(" users\n\n");
    md.append("Both nodes' threads over the fixed-load window, by thread name, per successful request: CPU µs "
        + "(the share of it in the kernel) · wake-ups / preemptions (voluntary / involuntary context switches).\n\n");
    md.append("| Setup | ").append(String.join(" | ", columns)).append(" | all threads |\n");
    md.append("|---|").append("---|".repeat(columns.size() + 1)).append('\n');
    List<String> notes = new ArrayList<>();
    boolean repeated = report.parameters().repeats() > 1;
    for (SetupOutcome outcome : rows) {
      ThreadCpu threads = outcome.overhead().threadCpu();
      String label = outcome.label() + (repeated ? " (rep. " + outcome.repeat() + ")" : "");
      md.append("| ").append(label);
      for (String column : columns) {
        ThreadCpu.GroupCpu group = threads.group(column);
        md.append(" | ").append(group == null ? "-" : cell(group));
      }
      md.append(" | ").append(cell(threads.all())).append(" |\n");
      if (threads.threadsEnded() > 0) {
        notes.add(label + ": " + threads.threadsEnded() + " thread(s) ended in the window, their CPU not counted");
      }
      if (!Objects.equals(threads.namesFrom(), ThreadCpu.FROM_DUMP)) {
        notes.add(label + ": no thread dump, threads grouped by their 15-character kernel names (Tomcat's poller "
            + "counted with its request threads)");
      }
    }
    md.append("\nFrom `/proc/<pid>/task/*/stat` and `status` at the window's open and close (CPU in 10 ms ticks per "
        + "thread); names from a thread dump taken after the close. Groups: benchmarks/README.md.\n");
    for (String note : notes) {
      md.append("- ").append(note).append('\n');
    }
    List<SetupOutcome> batched = rows.stream().filter(o -> o.overhead().transport() != null).toList();
    if (!batched.isEmpty()) {
      md.append("\nTandem's transport, both nodes, at this load and at the closed-loop peak (JMX `RequestsSent`, "
          + "`AcksReceived`, `FramesWritten`, `SocketWrites`, `CallerWrites`; docs/tomcat.md, \"Transport figures\"):\n\n");
      for (SetupOutcome outcome : batched) {
        TransportBatching peak = outcome.peak() == null ? null : outcome.peak().transport();
        md.append("- ").append(outcome.label()).append(repeated ? " (rep. " + outcome.repeat() + ")" : "").append(": ")
            .append(outcome.overhead().transport().describe()).append("; peak: ")
            .append(peak == null ? "not measured" : peak.describe()).append('\n');
      }
    }
    return md.append('\n').toString();
  }

  /** One line for the console after a setup's fixed-load step. */
  static String line(ThreadCpu threads) {
    StringBuilder line = new StringBuilder("where the CPU goes, per request (µs (kernel share) · wake-ups / preemptions):");
    for (ThreadCpu.GroupCpu group : threads.groups()) {
      line.append(' ').append(group.group()).append(' ').append(cell(group)).append(';');
    }
    return line.append(" all ").append(cell(threads.all())).toString();
  }

  /** {@code 120 (38 % sys) · 2.1 / 0.3}: µs, system share, voluntary / involuntary switches, per request. */
  static String cell(ThreadCpu.GroupCpu group) {
    double share = group.cpuMicrosPerRequest() > 0 ? group.systemMicrosPerRequest() / group.cpuMicrosPerRequest() : 0;
    return String.format(Locale.ROOT, "%.0f (%.0f %% sys) · %.2f / %.2f", group.cpuMicrosPerRequest(), share * 100,
        group.voluntarySwitchesPerRequest(), group.involuntarySwitchesPerRequest());
  }
}
