package io.tandem.benchmarks.replication;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Writes a run's {@code results.json} (everything) and {@code summary.md} (the table and the ratios). */
final class ReplicationReportWriter {
  static final String JSON = "results.json";
  static final String MARKDOWN = "summary.md";

  private ReplicationReportWriter() {}

  static void write(ReplicationReport report, Path directory) throws IOException {
    Files.createDirectories(directory);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(directory.resolve(JSON).toFile(), report);
    Files.writeString(directory.resolve(MARKDOWN), markdown(report), StandardCharsets.UTF_8);
  }

  static String markdown(ReplicationReport report) {
    ReplicationReport.Parameters p = report.parameters();
    FrameSizes sizes = report.frameSizes();
    StringBuilder md = new StringBuilder();
    md.append("# Tandem replication hot path against a plain NIO floor\n\n");
    md.append("Run `").append(report.command()).append("`, ").append(report.startedAt()).append(" to ")
        .append(report.finishedAt()).append(".\n\n");
    md.append("- Processes: an owner and a buddy JVM per variant, on loopback; ").append(report.cpuCap()).append(".\n");
    md.append("- Machine: ").append(report.machine()).append(".\n");
    md.append(String.format(Locale.ROOT, "- Load: %d writer threads in the owner, each replacing the one %d-byte "
            + "attribute of its own session as fast as acks come back (Tandem: MODIFIED_ATTRIBUTE, SYNC, Kryo, ack "
            + "timeout %d ms; tandem-async: the same in ASYNC, as fast as the engine queues). Uncapped warm-up %d ms, "
            + "then capped: settle %d ms, measured window %d ms.%n",
        p.writers(), p.attributeBytes(), p.ackTimeoutMillis(), p.warmUpMillis(), p.settleMillis(), p.windowMillis()));
    md.append(String.format(Locale.ROOT, "- Bytes per update: %d-byte request frame, %d-byte ack frame (%s).%n",
        sizes.requestBytes(), sizes.ackBytes(), sizes.source()));
    md.append("- CPU per update: each process's CPU time (all threads) over its own count in its own window "
        + "(owner: updates acknowledged, or in ASYNC accepted into the queue; buddy: updates applied, counted in "
        + "session versions for Tandem, so an ASYNC message that carries several coalesced updates counts them all).\n");
    md.append("- After the window the owner's writers stop and its engine drains (at most "
        + TandemNode.DRAIN.toSeconds() + " s); *not on the buddy after the drain* is every update the owner produced "
        + "less every one the buddy holds: a queue that drops updates shows there.\n\n");

    md.append("| variant | updates/s | owner µs/update | buddy µs/update | pair µs/update | owner cores | buddy cores "
        + "| owner updates | buddy applied (messages) | not accepted | not on the buddy after the drain "
        + "| throttled periods (owner/buddy) | note |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (VariantOutcome o : report.outcomes()) {
      md.append("| ").append(o.variant())
          .append(" | ").append(number(o.updatesPerSecond(), "%,.0f"))
          .append(" | ").append(number(o.ownerMicrosPerUpdate(), "%.1f"))
          .append(" | ").append(number(o.buddyMicrosPerUpdate(), "%.1f"))
          .append(" | ").append(number(o.pairMicrosPerUpdate(), "%.1f"))
          .append(" | ").append(number(o.ownerCores(), "%.2f"))
          .append(" | ").append(number(o.buddyCores(), "%.2f"))
          .append(" | ").append(String.format(Locale.ROOT, "%,d", o.ownerUpdates()))
          .append(" | ").append(String.format(Locale.ROOT, "%,d (%,d)", o.buddyUpdates(), o.buddyRequests()))
          .append(" | ").append(o.failedUpdates())
          .append(" | ").append(o.unappliedAfterDrain() == null ? "-"
              : String.format(Locale.ROOT, "%,d of %,d", o.unappliedAfterDrain(), o.producedUpdates()))
          .append(" | ").append(o.ownerThrottledPeriods()).append(" / ").append(o.buddyThrottledPeriods())
          .append(" | ").append(note(o)).append(" |\n");
    }
    md.append('\n');
    if (report.ratios().isEmpty()) {
      md.append("No ratio: Tandem and at least one floor must both be measured.\n");
    } else {
      md.append("**Tandem CPU µs per update / floor CPU µs per update** (both processes; owner and buddy apart):\n\n");
      for (ReplicationReport.Ratio r : report.ratios()) {
        md.append("- ").append(r.floor()).append(": **").append(number(r.pair(), "%.2f×")).append("** (owner ")
            .append(number(r.owner(), "%.2f×")).append(", buddy ").append(number(r.buddy(), "%.2f×")).append(")\n");
      }
    }
    return md.toString();
  }

  private static String note(VariantOutcome o) {
    String note = o.failure() == null ? "" : o.failure().replace('|', '/').replace('\n', ' ');
    if (o.overCeiling()) {
      note = (note.isEmpty() ? "" : note + "; ") + "a process averaged more than the cap (taskset fallback)";
    }
    if (o.pausesDetected() != null && o.pausesDetected() > 0) {
      note = (note.isEmpty() ? "" : note + "; ") + o.pausesDetected() + " JVM pause(s) detected: the machine was "
          + "overloaded and the node quarantined its sessions, so the figures are suspect";
    }
    if (o.engine() != null && o.variant().equals(Variant.TANDEM_ASYNC.label())) {
      note = (note.isEmpty() ? "" : note + "; ") + "owner engine " + o.engine();
    }
    if (!"none".equals(o.otherOutcomes())) {
      note = (note.isEmpty() ? "" : note + "; ") + "flush outcomes other than REPLICATED: " + o.otherOutcomes();
    }
    return note;
  }

  static String number(Double value, String format) {
    return value == null ? "n/a" : String.format(Locale.ROOT, format, value);
  }
}
