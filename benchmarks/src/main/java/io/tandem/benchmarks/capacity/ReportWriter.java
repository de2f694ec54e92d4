package io.tandem.benchmarks.capacity;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a run's results into its directory: {@code results.json} (everything), {@code summary.md} (the table of
 * ratios to the control, the targets, and every step) and two charts, {@code p90-vs-users.png} and
 * {@code ustar.png}.
 */
final class ReportWriter {

  static final String JSON = "results.json";
  static final String MARKDOWN = "summary.md";
  static final String P90_CHART = "p90-vs-users.png";
  static final String USTAR_CHART = "ustar.png";

  private ReportWriter() {}

  static void write(BenchReport report, Path directory) throws IOException {
    Files.createDirectories(directory);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(directory.resolve(JSON).toFile(), report);
    Files.writeString(directory.resolve(MARKDOWN), markdown(report), StandardCharsets.UTF_8);
    System.setProperty("java.awt.headless", "true");
    BitmapEncoder.saveBitmap(p90Chart(report), directory.resolve(P90_CHART).toString(), BitmapEncoder.BitmapFormat.PNG);
    BitmapEncoder.saveBitmap(uStarChart(report), directory.resolve(USTAR_CHART).toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  /** The capped warm-up of each setup, or nothing when none ran one. */
  static String jitSettling(List<SetupOutcome> outcomes) {
    StringBuilder md = new StringBuilder();
    for (SetupOutcome o : outcomes) {
      JitSettling.Outcome jit = o.jitSettling();
      if (jit != null) {
        md.append(String.format(Locale.ROOT, "- %s (rep. %d): capped warm-up of %d round(s) of %d s; %s (JIT cores per "
                + "node in the last round: %s)%n", o.label(), o.repeat(), jit.rounds(), JitSettling.ROUND.toSeconds(),
            jit.settled() ? "the JIT went quiet" : "the JIT was still compiling when the rounds ran out",
            jit.lastRoundJitCores().stream().map(c -> String.format(Locale.ROOT, "%.3f", c)).toList()));
      }
    }
    return md.length() == 0 ? "" : "## Capped warm-up\n\nBefore the search, each setup's capped nodes get unjudged load at "
        + "the fixed-load step's user count, in rounds, until neither node's JIT compiler threads use more than "
        + JitSettling.QUIET_CORES + " core in a round (at most " + JitSettling.MAX_ROUNDS
        + " rounds, fewer after a shorter uncapped warm-up).\n\n" + md + "\n";
  }

  static String markdown(BenchReport report) {
    StringBuilder md = new StringBuilder();
    BenchReport.Environment env = report.environment();
    BenchReport.Parameters p = report.parameters();
    md.append("# Tandem load benchmark: users within ").append(p.budgetMillis()).append(" ms at p90\n\n");
    md.append("Run `").append(report.command()).append("`, ").append(report.startedAt()).append(" to ")
        .append(report.finishedAt()).append(".\n\n");
    md.append("- Nodes: two Tomcat ").append(env.tomcat()).append(" processes on loopback; ").append(env.cpuCap())
        .append(".\n");
    md.append("- Machine: ").append(env.machineCores()).append(" cores, ").append(env.os()).append(", Java ")
        .append(env.java()).append(".\n");
    md.append(String.format(Locale.ROOT, "- Workload: each user's session has %d pages, each adding a %d-byte "
            + "attribute and listing all of them; think time %d ms ± %.0f %%; each step warms up %d s and measures "
            + "%d s; %d repetition(s), setups interleaved.%n",
        p.pagesPerSession(), p.attributeBytes(), p.thinkTimeMillis(), p.thinkJitter() * 100, p.warmUpMillis() / 1000,
        p.windowMillis() / 1000, p.repeats()));
    md.append(String.format(Locale.ROOT, "- U* search: from %d users, ×%.1f until the verdict flips (at most %d), "
            + "then bisection to %.0f %%; at most %d steps. Overhead measured at %d users; peak with %d closed-loop "
            + "clients on the one-attribute page.%n%n",
        p.searchStartUsers(), p.searchGrowth(), p.searchMaxUsers(), p.searchResolution() * 100, p.searchMaxSteps(),
        p.overheadUsers(), p.peakClients()));

    md.append("| Setup | U* (each repetition) | U* / control | strict U* | strict / control | peak req/s | peak / control "
        + "| server CPU ms/req | replication CPU µs/req | replicated bytes/req | added p50 ms | added p99 ms |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (SetupSummary s : report.summary()) {
      md.append("| ").append(s.label())
          .append(" | ").append(number(s.medianUStar(), 0)).append(s.uStarIsLowerBound() ? "+" : "")
          .append(" (").append(s.uStars().stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("-"))
          .append(") | ").append(number(s.uStarRatio(), 2))
          .append(" | ").append(number(s.medianStrictUStar(), 0))
          .append(" | ").append(number(s.strictUStarRatio(), 2))
          .append(" | ").append(number(s.peakThroughput(), 0))
          .append(" | ").append(number(s.peakRatio(), 2))
          .append(" | ").append(number(s.cpuMillisPerRequest(), 2))
          .append(" | ").append(signed(s.replicationCpuMicrosPerRequest(), "%+.0f"))
          .append(" | ").append(number(s.bytesReplicatedPerRequest(), 0))
          .append(" | ").append(signed(s.addedP50Millis(), "%+.1f"))
          .append(" | ").append(signed(s.addedP99Millis(), "%+.1f")).append(" |\n");
    }
    md.append("\n`+`: the search reached its maximum, so U* is a lower bound. Strict U* counts only steps where no "
        + "replication failed or timed out (Tandem's counters; for Tomcat's managers, their SEVERE lines and Tribes' send-failure warnings). "
        + "Server CPU and replicated bytes are both nodes together, at the fixed load; replication CPU is the server CPU "
        + "per request over the control's in the same repetition (median over repetitions). -: not measured.\n\n");

    md.append("## Targets\n\n");
    for (String line : targets(report.summary())) {
      md.append("- ").append(line).append('\n');
    }
    for (SetupSummary s : report.summary()) {
      for (String failure : s.failures()) {
        md.append("- ").append(s.label()).append(" could not be measured in ").append(failure).append('\n');
      }
    }

    md.append('\n').append(jitSettling(report.outcomes()));
    md.append(ThreadCpuReport.markdown(report));
    md.append("## Every step\n\n| Setup | Rep. | Phase | Users | Requests | Errors | req/s | p50 ms | p90 ms | p99 ms "
        + "| server CPU (cores) | throttled periods | verdict |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (SetupOutcome outcome : report.outcomes()) {
      List<StepRecord> steps = new ArrayList<>(outcome.search());
      Optional.ofNullable(outcome.overhead()).ifPresent(steps::add);
      Optional.ofNullable(outcome.peak()).ifPresent(steps::add);
      for (StepRecord step : steps) {
        md.append(String.format(Locale.ROOT, "| %s | %d | %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |%n",
            outcome.label(), step.repeat(), step.phase(), step.users(), step.requests(), step.errors(),
            step.throughput(), step.p50Millis(), step.p90Millis(), step.p99Millis(), number(step.serverCpuCores(), 2),
            step.throttledPeriods() < 0 ? "-" : Long.toString(step.throttledPeriods()),
            step.strictlyWithinBudget() ? "within" : (step.withinBudget() ? "within (not strict): " : "over: ")
                + String.join("; ", step.notes())));
      }
    }
    return md.toString();
  }

  /** Issue 14's U* targets, as a share of the control's; its longer-range goal for MODIFIED_ATTRIBUTE SYNC is 0.90. */
  private static final Map<String, Double> ISSUE_14_RATIOS = Map.of(
      "tandem-modified-attribute-sync", 0.75, "tandem-modified-attribute-async", 0.85, "tandem-session-sync", 0.60);

  /**
   * The issues' targets, judged on the medians: reported, never asserted. Issue 14's: shares of the control, every
   * Tandem setup above DeltaManager's asynchronous default and at least four times BackupManager; issue 29's: every
   * SYNC setup above DeltaManager with synchronous acks, when the run has it.
   */
  static List<String> targets(List<SetupSummary> summary) {
    List<String> lines = new ArrayList<>();
    Optional<SetupSummary> control = summary.stream().filter(s -> s.setup().equals(Setup.CONTROL.name())).findFirst();
    Optional<SetupSummary> backup = summary.stream().filter(s -> s.setup().equals(Setup.BACKUP_MANAGER.name())).findFirst();
    Optional<SetupSummary> delta = summary.stream().filter(s -> s.setup().equals(Setup.DELTA_MANAGER.name())).findFirst();
    Optional<SetupSummary> deltaSync =
        summary.stream().filter(s -> s.setup().equals(Setup.DELTA_MANAGER_SYNC.name())).findFirst();
    for (SetupSummary s : summary) {
      if (!s.setup().startsWith("tandem-")) {
        continue;
      }
      double goal = ISSUE_14_RATIOS.getOrDefault(s.setup(), -1.0);
      if (goal > 0 && control.isPresent()) {
        lines.add(String.format(Locale.ROOT, "%s: U* %s of the control's (target ≥ %.2f): %s", s.label(),
            number(s.uStarRatio(), 2), goal, verdict(s, control.get(), s.uStarRatio(), goal)));
      }
      delta.filter(d -> d.medianUStar() > 0 && s.medianUStar() >= 0).ifPresent(d -> lines.add(String.format(Locale.ROOT,
          "%s: U* %s against Tomcat DeltaManager's %s (target: above it): %s", s.label(), number(s.medianUStar(), 0),
          number(d.medianUStar(), 0), verdict(s, d, s.medianUStar() / d.medianUStar(), Math.nextUp(1.0)))));
      // Issue 29: every SYNC setup above Tomcat's synchronous DeltaManager, its peer of the same kind, in the same run.
      if (s.setup().endsWith("-sync")) {
        deltaSync.filter(d -> d.medianUStar() > 0 && s.medianUStar() >= 0).ifPresent(d -> lines.add(String.format(
            Locale.ROOT, "%s: U* %s against Tomcat DeltaManager's with synchronous acks %s (target: above it): %s",
            s.label(), number(s.medianUStar(), 0), number(d.medianUStar(), 0),
            verdict(s, d, s.medianUStar() / d.medianUStar(), Math.nextUp(1.0)))));
      }
      backup.filter(b -> b.medianUStar() >= 0).ifPresent(b -> {
        double times = b.medianUStar() > 0 ? s.medianUStar() / b.medianUStar() : Double.POSITIVE_INFINITY;
        lines.add(String.format(Locale.ROOT, "%s: U* %s × Tomcat BackupManager's (target ≥ 4): %s", s.label(),
            Double.isInfinite(times) ? "∞" : number(times, 2), verdict(s, b, times, 4)));
      });
    }
    return lines;
  }

  /**
   * Met or missed, unless a lower bound leaves it open: a ratio under the goal proves nothing while the setup's own
   * U* is only a lower bound, and one over it proves nothing while the reference's is.
   */
  private static String verdict(SetupSummary setup, SetupSummary reference, double ratio, double goal) {
    if (ratio < 0 || setup.medianUStar() < 0) {
      return "not measured";
    }
    if (ratio >= goal) {
      return reference.uStarIsLowerBound() ? "open (the reference's U* is only a lower bound)" : "met";
    }
    return setup.uStarIsLowerBound() ? "open (this U* is only a lower bound)" : "MISSED";
  }

  private static XYChart p90Chart(BenchReport report) {
    XYChart chart = new XYChartBuilder().width(1000).height(600).title("p90 response time against users (all steps)")
        .xAxisTitle("users").yAxisTitle("p90 (ms)").build();
    chart.getStyler().setYAxisLogarithmic(true);
    for (SetupSummary s : report.summary()) {
      List<StepRecord> steps = report.outcomes().stream().filter(o -> o.setup().equals(s.setup()))
          .flatMap(o -> o.search().stream()).sorted(Comparator.comparingInt(StepRecord::users)).toList();
      if (steps.isEmpty()) {
        continue;
      }
      XYSeries series = chart.addSeries(s.label(), steps.stream().mapToDouble(StepRecord::users).toArray(),
          steps.stream().mapToDouble(step -> Math.max(0.1, step.p90Millis())).toArray());
      series.setMarker(SeriesMarkers.CIRCLE);
    }
    int maxUsers = report.outcomes().stream().flatMap(o -> o.search().stream()).mapToInt(StepRecord::users).max().orElse(1);
    XYSeries budget = chart.addSeries("budget", new double[] {0, maxUsers},
        new double[] {report.parameters().budgetMillis(), report.parameters().budgetMillis()});
    budget.setMarker(SeriesMarkers.NONE);
    return chart;
  }

  private static CategoryChart uStarChart(BenchReport report) {
    CategoryChart chart = new CategoryChartBuilder().width(1000).height(600)
        .title("U*: users within " + report.parameters().budgetMillis() + " ms at p90 (median)").xAxisTitle("setup")
        .yAxisTitle("users").build();
    chart.getStyler().setLegendVisible(true);
    chart.getStyler().setXAxisLabelRotation(30);
    List<String> labels = report.summary().stream().map(SetupSummary::label).toList();
    chart.addSeries("U*", labels, report.summary().stream().map(s -> (Number) Math.max(0, s.medianUStar())).toList());
    chart.addSeries("strict U*", labels,
        report.summary().stream().map(s -> (Number) Math.max(0, s.medianStrictUStar())).toList());
    return chart;
  }

  private static String number(double value, int decimals) {
    return value < 0 || Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  private static String signed(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }
}
