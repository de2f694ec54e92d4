package io.tandem.benchmarks.replication;

import io.tandem.benchmarks.capacity.CpuCap;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of the replication benchmark: for each variant a fresh owner and buddy JVM, warmed up uncapped, capped,
 * settled, measured over the window, stopped; the results are rewritten after every variant, so an interrupted run
 * keeps what it measured.
 *
 * <p>Implementation notes: runs on the caller's thread; the node processes are ended by it (or, if it is
 * interrupted, by a shutdown hook) before the cap's cgroups are removed.
 */
final class ReplicationBenchRun {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(40);
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(15);
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneId.systemDefault());

  private final ReplicationBenchSettings settings;
  private final String command;
  private final PrintStream progress;
  private final List<NodeProcess> live = new ArrayList<>();

  ReplicationBenchRun(ReplicationBenchSettings settings, String command, PrintStream progress) {
    this.settings = settings;
    this.command = command;
    this.progress = progress;
  }

  /** Runs every variant and returns the results directory. */
  Path run() throws IOException, InterruptedException {
    Instant started = Instant.now();
    String stamp = STAMP.format(started);
    Path directory = settings.results().resolve(stamp + "-replication");
    Path nodes = settings.home().resolve("replication-nodes").resolve(stamp);
    Thread hook = new Thread(this::endAll, "tandem-bench-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try (CpuCap cap = CpuCap.create(settings.cpuCores(), settings.cfsPeriod())) {
      progress.println("Replication benchmark: " + settings.writers() + " writers, " + settings.attributeBytes()
          + "-byte attribute; warm-up " + settings.warmUp().toMillis() + " ms uncapped, settle "
          + settings.settle().toMillis() + " ms, window " + settings.window().toMillis() + " ms");
      progress.println("Cap: " + cap.describe());
      FrameSizes sizes = FrameSizes.computed(settings.attributeBytes());
      List<VariantOutcome> outcomes = new ArrayList<>();
      for (Variant variant : settings.variants()) {
        Path logs = nodes.resolve(variant.label());
        VariantOutcome outcome;
        try {
          Measured measured = measure(variant, sizes, cap, logs);
          outcome = measured.outcome();
          if (variant == Variant.TANDEM && measured.sizes() != null) {
            sizes = measured.sizes();
          }
        } catch (IOException | RuntimeException e) {
          outcome = VariantOutcome.failed(variant, e.getMessage(), logs.toString());
        } finally {
          endAll();
        }
        outcomes.add(outcome);
        progress.println(consoleLine(outcome));
        write(directory, started, cap, sizes, outcomes);
      }
      ReplicationReport report = write(directory, started, cap, sizes, outcomes);
      for (ReplicationReport.Ratio r : report.ratios()) {
        progress.println("Tandem CPU µs per update / " + r.floor() + " CPU µs per update = "
            + ReplicationReportWriter.number(r.pair(), "%.2f") + " (owner " + ReplicationReportWriter.number(r.owner(), "%.2f")
            + ", buddy " + ReplicationReportWriter.number(r.buddy(), "%.2f") + ")");
      }
    } finally {
      endAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // shutting down
      }
    }
    return directory;
  }

  private record Measured(VariantOutcome outcome, FrameSizes sizes) {}

  private Measured measure(Variant variant, FrameSizes sizes, CpuCap cap, Path logs) throws IOException, InterruptedException {
    int buddyPort = freePort();
    int ownerPort = freePort();
    progress.println(variant.label() + ": starting the buddy and the owner (logs in " + logs + ")");
    NodeProcess buddy = start(variant, "buddy", buddyPort, ownerPort, sizes, logs);
    buddy.await("READY", START_TIMEOUT);
    NodeProcess owner = start(variant, "owner", ownerPort, buddyPort, sizes, logs);
    owner.await("READY", START_TIMEOUT);
    owner.send("START");
    owner.await("STARTED", ANSWER_TIMEOUT);
    Thread.sleep(settings.warmUp().toMillis());
    String ownerGroup = "replbench-" + variant.label() + "-owner";
    String buddyGroup = "replbench-" + variant.label() + "-buddy";
    cap.apply(ownerGroup, owner.pid());
    cap.apply(buddyGroup, buddy.pid());
    Thread.sleep(settings.settle().toMillis());

    long ownerThrottled = cap.throttledPeriods(ownerGroup);
    long buddyThrottled = cap.throttledPeriods(buddyGroup);
    NodeLine[] start = mark(owner, buddy);
    Thread.sleep(settings.window().toMillis());
    NodeLine[] end = mark(owner, buddy);
    long ownerThrottledAfter = cap.throttledPeriods(ownerGroup);
    long buddyThrottledAfter = cap.throttledPeriods(buddyGroup);

    owner.send("STOP"); // the owner's writers end, then it waits for its engine to drain (Tandem)
    NodeLine ownerSummary = owner.await("STOPPED", ANSWER_TIMEOUT.plus(TandemNode.DRAIN));
    buddy.send("STOP");
    NodeLine buddySummary = buddy.await("STOPPED", ANSWER_TIMEOUT);

    ProcessWindow ownerWindow = end[0].mark().since(start[0].mark());
    ProcessWindow buddyWindow = end[1].mark().since(start[1].mark());
    VariantFigures figures = VariantFigures.of(ownerWindow, buddyWindow);
    long failed = end[0].number("failed") - start[0].number("failed");
    long buddyRequests = end[1].number("requests") - start[1].number("requests");
    List<String> problems = new ArrayList<>();
    for (NodeLine line : end) {
      if (!line.text("failure").equals("none")) {
        problems.add("a node's load stopped with " + line.text("failure") + " (see its log)");
      }
    }
    if (ownerWindow.updates() == 0 || buddyWindow.updates() == 0) {
      problems.add("no updates in the window");
    }
    Drain drain = variant.isTandem() ? Drain.of(ownerSummary, buddySummary) : Drain.NONE;
    if (drain.drained() == Boolean.FALSE) {
      problems.add("the owner's engine did not drain within " + TandemNode.DRAIN.toSeconds() + " s of the writers' end");
    }
    FrameSizes measuredSizes = null;
    if (variant == Variant.TANDEM) {
      int request = Integer.parseInt(ownerSummary.text("requestFrameBytes"));
      int ack = Integer.parseInt(ownerSummary.text("ackFrameBytes"));
      if (request > 0 && ack > 0) {
        measuredSizes = new FrameSizes(request, ack, "measured");
      }
    }
    boolean overCeiling = cap.overCeiling(ownerWindow.cores()) || cap.overCeiling(buddyWindow.cores());
    VariantOutcome outcome = new VariantOutcome(variant.label(), problems.isEmpty() ? null : String.join("; ", problems),
        VariantOutcome.finite(figures.updatesPerSecond()), VariantOutcome.finite(figures.ownerMicrosPerUpdate()),
        VariantOutcome.finite(figures.buddyMicrosPerUpdate()), VariantOutcome.finite(figures.pairMicrosPerUpdate()),
        VariantOutcome.finite(figures.ownerCores()), VariantOutcome.finite(figures.buddyCores()), ownerWindow.updates(),
        buddyWindow.updates(), buddyRequests, ownerWindow.elapsedNanos() / 1_000_000, failed,
        ownerSummary.fields().getOrDefault("otherOutcomes", "none"), delta(ownerThrottled, ownerThrottledAfter),
        delta(buddyThrottled, buddyThrottledAfter), overCeiling, drain.produced(), drain.applied(), drain.drained(),
        ownerSummary.fields().get("engine"), drain.pauses(), logs.toString());
    return new Measured(outcome, measuredSizes);
  }

  /**
   * After the writers' end and the owner's drain: every update the owner produced since its writers started, and
   * every one the buddy holds (both Tandem only; null for the floors).
   */
  private record Drain(Long produced, Long applied, Boolean drained, Long pauses) {
    static final Drain NONE = new Drain(null, null, null, null);

    static Drain of(NodeLine owner, NodeLine buddy) {
      return new Drain(owner.number("produced"), buddy.number("applied"), Boolean.parseBoolean(owner.text("drained")),
          owner.number("pauses") + buddy.number("pauses"));
    }
  }

  private static long delta(long before, long after) {
    return before < 0 || after < 0 ? -1 : after - before;
  }

  /** Asks both nodes at once, then reads both answers: [owner, buddy]. */
  private static NodeLine[] mark(NodeProcess owner, NodeProcess buddy) throws IOException, InterruptedException {
    owner.send("MARK");
    buddy.send("MARK");
    return new NodeLine[] {owner.await("MARK", ANSWER_TIMEOUT), buddy.await("MARK", ANSWER_TIMEOUT)};
  }

  private NodeProcess start(Variant variant, String role, int port, int peerPort, FrameSizes sizes, Path logs)
      throws IOException {
    List<String> arguments = List.of("role=" + role, "variant=" + variant.label(), "port=" + port, "peerPort=" + peerPort,
        "writers=" + settings.writers(), "attributeBytes=" + settings.attributeBytes(),
        "requestBytes=" + sizes.requestBytes(), "ackBytes=" + sizes.ackBytes(),
        "ackTimeoutMs=" + settings.ackTimeout().toMillis());
    NodeProcess node = NodeProcess.start(variant.label() + "-" + role, arguments, logs.resolve(role),
        settings.flightRecording());
    synchronized (live) {
      live.add(node);
    }
    return node;
  }

  private void endAll() {
    List<NodeProcess> nodes;
    synchronized (live) {
      nodes = List.copyOf(live);
      live.clear();
    }
    nodes.forEach(NodeProcess::close);
  }

  private ReplicationReport write(Path directory, Instant started, CpuCap cap, FrameSizes sizes,
      List<VariantOutcome> outcomes) throws IOException {
    ReplicationReport report = new ReplicationReport(command, started.toString(), Instant.now().toString(),
        Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
            + System.getProperty("os.version") + ", Java " + System.getProperty("java.version"),
        cap.describe(), cap.enforced(), ReplicationReport.Parameters.of(settings), sizes, List.copyOf(outcomes),
        ReplicationReport.ratios(outcomes));
    ReplicationReportWriter.write(report, directory);
    return report;
  }

  static String consoleLine(VariantOutcome o) {
    if (!o.measured()) {
      return o.variant() + ": FAILED: " + o.failure();
    }
    String applied = o.producedUpdates() == null ? "" : String.format(Locale.ROOT,
        "; buddy applied %,d updates in %,d messages; after the drain %,d of %,d produced not on the buddy",
        o.buddyUpdates(), o.buddyRequests(), o.unappliedAfterDrain(), o.producedUpdates());
    String pauses = o.pausesDetected() == null || o.pausesDetected() == 0 ? ""
        : "; JVM PAUSES DETECTED: " + o.pausesDetected() + " (machine overloaded; figures suspect)";
    return String.format(Locale.ROOT, "%s: %,.0f updates/s; CPU per update: owner %.1f µs, buddy %.1f µs, pair %.1f µs; "
            + "cores %.2f / %.2f; %d not accepted%s; throttled periods %d / %d%s%s",
        o.variant(), o.updatesPerSecond(), o.ownerMicrosPerUpdate(), o.buddyMicrosPerUpdate(), o.pairMicrosPerUpdate(),
        o.ownerCores(), o.buddyCores(), o.failedUpdates(), applied, o.ownerThrottledPeriods(), o.buddyThrottledPeriods(),
        pauses, o.failure() == null ? "" : " (" + o.failure() + ")");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
