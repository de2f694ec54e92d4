package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.load.LoadDriver;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of the benchmark: for each repetition, each setup in turn gets a fresh pair of capped nodes, a warm-up,
 * the U* search, the step at the fixed load and the peak step. Results are rewritten after every setup, so an
 * interrupted run still leaves what it measured.
 *
 * <p>Implementation notes: runs on the caller's thread; a setup that cannot be measured (a node that does not
 * start, say) is recorded as failed and the run goes on.
 */
final class BenchRun {

  private static final DateTimeFormatter DIRECTORY_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private final BenchSettings settings;
  private final String command;
  private final PrintStream progress;
  // The pair under load, for the shutdown hook: Ctrl-C must not leave Tomcat processes behind.
  private volatile NodePair active;

  BenchRun(BenchSettings settings, String command, PrintStream progress) {
    this.settings = settings;
    this.command = command;
    this.progress = progress;
  }

  /** Runs every setup and returns the directory holding the results. */
  Path run() throws Exception {
    Instant started = Instant.now();
    Path directory = settings.results().resolve(DIRECTORY_NAME.format(started));
    Path work = settings.home().resolve("bench-nodes").resolve(DIRECTORY_NAME.format(started));
    BenchHome home = BenchHome.in(settings.home());
    LoadDriver driver = new LoadDriver();
    List<SetupOutcome> outcomes = new ArrayList<>();
    CpuCap cap = CpuCap.create(settings.cpuCores(), settings.cfsPeriod());
    Thread cleanup = new Thread(() -> {
      NodePair pair = active;
      if (pair != null) {
        pair.close();
      }
      cap.close();
    }, "tandem-bench-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      runAll(started, directory, work, home, cap, driver, outcomes);
    } finally {
      Runtime.getRuntime().removeShutdownHook(cleanup);
      cap.close();
    }
    return directory;
  }

  private void runAll(Instant started, Path directory, Path work, BenchHome home, CpuCap cap, LoadDriver driver,
      List<SetupOutcome> outcomes) throws Exception {
    progress.println("Nodes: two Tomcat " + home.tomcatVersion() + " processes per setup; " + cap.describe());
    progress.println("Results: " + directory + "   node logs: " + work);
    for (int repeat = 1; repeat <= settings.repeats(); repeat++) {
      for (Setup setup : settings.order(repeat)) {
        progress.printf(Locale.ROOT, "== %s, repetition %d of %d%n", setup.label(), repeat, settings.repeats());
        SetupOutcome outcome = measure(setup, repeat, home, work, cap, driver);
        outcomes.add(outcome);
        printReplicationCpu(outcome, outcomes);
        ReportWriter.write(report(started, cap, home, outcomes), directory);
      }
    }
    progress.println();
    progress.print(ReportWriter.markdown(report(started, cap, home, outcomes)).lines()
        .takeWhile(line -> !line.startsWith("## Every step")).reduce("", (a, b) -> a + b + "\n"));
  }

  private SetupOutcome measure(Setup setup, int repeat, BenchHome home, Path work, CpuCap cap, LoadDriver driver) {
    String group = setup.name() + "-r" + repeat;
    try (NodePair pair = NodePair.start(setup, home, Files.createDirectories(work.resolve(group)),
        settings.flightRecording())) {
      active = pair;
      StepRunner runner = new StepRunner(pair, cap, group, driver, settings.budget(), repeat);
      warmUp(runner);
      pair.endAllSessions(); // compiles reset.jsp now: the JIT's work for Jasper's compiler lands before the cap
      pair.cap(cap, group);
      JitSettling.Outcome jit = settleJit(runner, pair);
      UserSearch.Outcome search = settings.search().run(
          (phase, users) -> runner.run(phase, settings.profile().withUsers(users), "grow.jsp"), this::print);
      progress.printf(Locale.ROOT, "   U* = %d%s (strict %d)%n", search.uStar(), search.lowerBound() ? "+" : "",
          search.strictUStar());
      StepRecord overhead = print(runner.runCountingThreads("overhead",
          settings.profile().withUsers(settings.overheadUsers()), "grow.jsp"));
      if (overhead.threadCpu() != null) {
        progress.println("   " + ThreadCpuReport.line(overhead.threadCpu()));
        if (overhead.transport() != null) {
          progress.println("   transport: " + overhead.transport().describe());
        }
      }
      StepRecord peak = print(runner.run("peak", settings.peakProfile(), "touch.jsp"));
      return new SetupOutcome(setup.name(), setup.label(), repeat, search.uStar(), search.strictUStar(),
          search.firstFailure(), search.lowerBound(), search.steps(), overhead, peak, null, jit);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SetupOutcome.failed(setup, repeat, "interrupted");
    } catch (Exception | Error e) {
      progress.println("   FAILED: " + e);
      return SetupOutcome.failed(setup, repeat, e.toString());
    } finally {
      active = null;
    }
  }

  /**
   * Load before the cap, unjudged: both pages, so the JIT has compiled the request path (and the replication path
   * behind it) before the cap makes compilation compete with requests.
   */
  private void warmUp(StepRunner runner) throws Exception {
    if (settings.nodeWarmUp().isZero()) {
      return;
    }
    Duration oneSecond = Duration.ofSeconds(1);
    StepRecord grow = runner.run("warm-up", settings.profile().withUsers(settings.search().startUsers())
        .withTiming(settings.nodeWarmUp(), oneSecond, settings.profile().requestTimeout()), "grow.jsp");
    StepRecord touch = runner.run("warm-up", settings.peakProfile()
        .withTiming(settings.nodeWarmUp().dividedBy(2), oneSecond, settings.profile().requestTimeout()), "touch.jsp");
    progress.printf(Locale.ROOT, "   warmed up uncapped: %d users for %d s, then %d closed-loop clients (%d errors)%n",
        grow.users(), settings.nodeWarmUp().toSeconds(), touch.users(), grow.errors() + touch.errors());
  }

  /** The capped warm-up: load at the fixed-load step's user count until the JIT has gone quiet on both nodes. */
  private JitSettling.Outcome settleJit(StepRunner runner, NodePair pair) throws Exception {
    if (settings.nodeWarmUp().isZero()) {
      return null;
    }
    JitSettling.Outcome jit = JitSettling.run(profile -> runner.run("warm-up", profile, "grow.jsp"),
        settings.profile().withUsers(settings.overheadUsers()), pair.nodes.stream().map(BenchNode::pid).toList(),
        JitSettling.roundsFor(settings.nodeWarmUp()));
    progress.printf(Locale.ROOT, "   warmed up capped: %d users for %d round(s) of %d s; JIT %s (cores in the last round: %s)%n",
        settings.overheadUsers(), jit.rounds(), JitSettling.ROUND.toSeconds(), jit.settled() ? "quiet" : "NOT quiet",
        jit.lastRoundJitCores().stream().map(c -> String.format(Locale.ROOT, "%.3f", c)).toList());
    return jit;
  }

  /** Once both this setup and the control ran their fixed-load step in this repetition, whichever ran first. */
  private void printReplicationCpu(SetupOutcome latest, List<SetupOutcome> outcomes) {
    List<SetupOutcome> pairs = new ArrayList<>();
    SetupOutcome control = outcomes.stream()
        .filter(o -> o.setup().equals(Setup.CONTROL.name()) && o.repeat() == latest.repeat()).findFirst().orElse(null);
    if (control == null) {
      return;
    }
    if (latest == control) {
      outcomes.stream().filter(o -> o != control && o.repeat() == latest.repeat()).forEach(pairs::add);
    } else {
      pairs.add(latest);
    }
    for (SetupOutcome outcome : pairs) {
      Double micros = SetupSummary.overControl(outcome, control, SetupSummary::cpuMicrosPerRequest);
      if (micros != null) {
        progress.printf(Locale.ROOT, "   %s: replication CPU %+.0f µs per request over the control at %d users%n",
            outcome.label(), micros, outcome.overhead().users());
      }
    }
  }

  private StepRecord print(StepRecord step) {
    progress.printf(Locale.ROOT, "   %-8s %5d users: p50 %6.1f ms, p90 %7.1f ms, %7.1f req/s, %d errors, server CPU %s → %s%n",
        step.phase(), step.users(), step.p50Millis(), step.p90Millis(), step.throughput(), step.errors(),
        step.serverCpuCores() < 0 ? "?" : String.format(Locale.ROOT, "%.2f cores", step.serverCpuCores()),
        step.strictlyWithinBudget() ? "within" : (step.withinBudget() ? "within, not strict: " : "over: ")
            + String.join("; ", step.notes()));
    return step;
  }

  private BenchReport report(Instant started, CpuCap cap, BenchHome home, List<SetupOutcome> outcomes) throws IOException {
    BenchReport.Environment environment = new BenchReport.Environment(cap.describe(), cap.enforced(), cap.cores(),
        cap.period().toNanos() / 1000, Runtime.getRuntime().availableProcessors(), Runtime.version().toString(),
        home.tomcatVersion(), System.getProperty("os.name") + " " + System.getProperty("os.version"));
    var profile = settings.profile();
    UserSearch search = settings.search();
    BenchReport.Parameters parameters = new BenchReport.Parameters(settings.setups().stream().map(Setup::name).toList(),
        settings.repeats(), profile.pagesPerSession(), profile.attributeBytes(), profile.thinkTime().toMillis(),
        profile.thinkJitter(), profile.warmUp().toMillis(), profile.window().toMillis(), settings.budget().toMillis(),
        search.startUsers(), search.maxUsers(), search.growth(), search.resolution(), search.maxSteps(),
        settings.overheadUsers(), settings.peakClients());
    return new BenchReport(command, started.toString(), Instant.now().toString(), environment, parameters,
        SetupSummary.of(settings.setups(), outcomes), outcomes);
  }
}
