package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

  private static StepRecord step(String setup, int repeat, String phase, int users, double p50, double p99,
      double throughput) {
    return new StepRecord(setup, repeat, phase, users, 1_000, 0, Map.of(), throughput, p50, p50 * 2, p99, p99 * 2, 0.4,
        0.2, 0.5, setup.startsWith("tandem") ? 1_100 : -1, 0, 12, 0.01, true, true, true, List.of(), null);
  }

  private static SetupOutcome outcome(Setup setup, int repeat, int uStar, double p50, double peak) {
    return new SetupOutcome(setup.name(), setup.label(), repeat, uStar, uStar, uStar + 50, false,
        List.of(step(setup.name(), repeat, "coarse", uStar, p50, p50 * 3, uStar)),
        step(setup.name(), repeat, "overhead", 100, p50, p50 * 3, 100).withThreadCpu(threads(setup)),
        step(setup.name(), repeat, "peak", 16, 1, 2, peak), null,
        new JitSettling.Outcome(2, true, List.of(0.001, 0.004)));
  }

  /** Request threads for every setup; Tandem's transport only for Tandem's; nothing counted for BackupManager. */
  private static ThreadCpu threads(Setup setup) {
    if (setup.kind() == Setup.Kind.TOMCAT_BACKUP) {
      return null;
    }
    ThreadCpu.GroupCpu requests = new ThreadCpu.GroupCpu(ThreadGroups.REQUEST_THREADS, 40, 120, 80, 40, 2.5, 0.25);
    ThreadCpu.GroupCpu transport = new ThreadCpu.GroupCpu(ThreadGroups.TANDEM_TRANSPORT, 4, 60, 15, 45, 1.2, 0.1);
    boolean tandem = setup.kind() == Setup.Kind.TANDEM;
    ThreadCpu.GroupCpu all = new ThreadCpu.GroupCpu("all threads", tandem ? 44 : 40, tandem ? 180 : 120, 95, 85, 3.7,
        0.35);
    return new ThreadCpu(ThreadCpu.FROM_DUMP, tandem ? 2 : 0, tandem ? List.of(requests, transport) : List.of(requests),
        all);
  }

  private static BenchReport report() {
    Setup attribute = Setup.tandem("MODIFIED_ATTRIBUTE", "SYNC");
    Setup session = Setup.tandem("SESSION", "SYNC");
    List<Setup> setups = List.of(Setup.CONTROL, attribute, session, Setup.BACKUP_MANAGER);
    List<SetupOutcome> outcomes = List.of(
        outcome(Setup.CONTROL, 1, 1_000, 2, 10_000), outcome(attribute, 1, 950, 3, 5_000),
        outcome(session, 1, 700, 4, 4_000), outcome(Setup.BACKUP_MANAGER, 1, 200, 9, 1_000),
        outcome(Setup.CONTROL, 2, 1_200, 2, 12_000), outcome(attribute, 2, 1_050, 3, 6_000),
        outcome(session, 2, 800, 5, 4_000), SetupOutcome.failed(Setup.BACKUP_MANAGER, 2, "node n2 did not start"));
    return new BenchReport("./tandem bench --repeats 2", "2026-11-23T10:00:00Z", "2026-11-23T12:00:00Z",
        new BenchReport.Environment("cgroup v1 cpu quota 0.25 core per node", true, 0.25, 100_000, 2, "17", "10.1.59", "Linux"),
        new BenchReport.Parameters(setups.stream().map(Setup::name).toList(), 2, 20, 1024, 1000, 0.1, 10_000, 30_000, 800,
            100, 4000, 2.0, 0.05, 9, 100, 16),
        SetupSummary.of(setups, outcomes), outcomes);
  }

  @Test
  void summariesTakeMediansOverRepetitionsAndRatiosToTheControl() {
    Map<String, SetupSummary> byName = new java.util.HashMap<>();
    report().summary().forEach(s -> byName.put(s.setup(), s));

    SetupSummary attribute = byName.get("tandem-modified-attribute-sync");
    assertThat(attribute.uStars()).containsExactly(950, 1_050);
    assertThat(attribute.medianUStar()).isEqualTo(1_000);
    assertThat(attribute.uStarRatio()).isEqualTo(1_000 / 1_100.0);
    assertThat(attribute.peakRatio()).isEqualTo(5_500 / 11_000.0);
    assertThat(attribute.addedP50Millis()).isEqualTo(1.0);
    assertThat(attribute.addedP99Millis()).isEqualTo(3.0);
    assertThat(attribute.bytesReplicatedPerRequest()).isEqualTo(1_100);

    SetupSummary backup = byName.get("tomcat-backup");
    assertThat(backup.medianUStar()).as("the failed repetition is left out, not counted as 0").isEqualTo(200);
    assertThat(backup.failures()).containsExactly("repeat 2: node n2 did not start");
    assertThat(backup.bytesReplicatedPerRequest()).isEqualTo(-1);
    assertThat(byName.get("no-replication").uStarRatio()).isEqualTo(1.0);
  }

  @Test
  void theMarkdownGivesTheTableTheTargetsAndEveryStep() {
    String markdown = ReportWriter.markdown(report());

    assertThat(markdown).contains("Run `./tandem bench --repeats 2`")
        .contains("| Tandem MODIFIED_ATTRIBUTE SYNC | 1000 (950, 1050) | 0.91 |")
        .contains("Tandem MODIFIED_ATTRIBUTE SYNC: U* 0.91 of the control's (target ≥ 0.75): met")
        .contains("Tandem SESSION SYNC: U* 0.68 of the control's (target ≥ 0.60): met")
        .contains("Tandem SESSION SYNC: U* 3.75 × Tomcat BackupManager's (target ≥ 4): MISSED")
        .contains("Tandem MODIFIED_ATTRIBUTE SYNC: U* 5.00 × Tomcat BackupManager's (target ≥ 4): met")
        .contains("Tomcat BackupManager could not be measured in repeat 2: node n2 did not start")
        .contains("| Tandem SESSION SYNC | 2 | peak | 16 |");
  }

  @Test
  void theMarkdownSaysWhereTheCpuGoesAtTheFixedLoad() {
    String markdown = ReportWriter.markdown(report());

    assertThat(markdown).contains("## Where the CPU goes at 100 users")
        .contains("| Setup | tomcat request threads | tandem transport | all threads |")
        .contains("| no replication (rep. 1) | 120 (33 % sys) · 2.50 / 0.25 | - | 120 (71 % sys) · 3.70 / 0.35 |")
        .contains("| Tandem MODIFIED_ATTRIBUTE SYNC (rep. 2) | 120 (33 % sys) · 2.50 / 0.25 | 60 (75 % sys) · 1.20 / 0.10 |")
        .contains("- Tandem SESSION SYNC (rep. 1): 2 thread(s) ended in the window, their CPU not counted")
        .doesNotContain("| Tomcat BackupManager (rep. 1) | 120");
    assertThat(markdown.indexOf("## Where the CPU goes")).isGreaterThan(markdown.indexOf("## Targets"))
        .isLessThan(markdown.indexOf("## Every step"));
  }

  @Test
  void theMarkdownSaysHowLongEachSetupsCappedWarmUpTook() {
    String markdown = ReportWriter.markdown(report());

    assertThat(markdown).contains("## Capped warm-up")
        .contains("capped warm-up of 2 round(s) of 10 s; the JIT went quiet (JIT cores per node in the last round: "
            + "[0.001, 0.004])");
  }

  @Test
  void theConsoleLineNamesEveryGroup() {
    assertThat(ThreadCpuReport.line(threads(Setup.tandem("SESSION", "SYNC")))).isEqualTo(
        "where the CPU goes, per request (µs (kernel share) · wake-ups / preemptions): tomcat request threads 120 "
            + "(33 % sys) · 2.50 / 0.25; tandem transport 60 (75 % sys) · 1.20 / 0.10; all 180 (47 % sys) · 3.70 / 0.35");
  }

  @Test
  void noStepCountedItsThreads_noSection() {
    BenchReport report = report();
    List<SetupOutcome> without = report.outcomes().stream().map(o -> o.overhead() == null ? o
        : new SetupOutcome(o.setup(), o.label(), o.repeat(), o.uStar(), o.strictUStar(), o.firstFailure(), o.lowerBound(),
            o.search(), o.overhead().withThreadCpu(null), o.peak(), o.failure(), null)).toList();

    assertThat(ReportWriter.markdown(new BenchReport(report.command(), report.startedAt(), report.finishedAt(),
        report.environment(), report.parameters(), report.summary(), without))).doesNotContain("Where the CPU goes");
  }

  @Test
  void aLowerBoundLeavesATargetOpenInsteadOfMissed() {
    Setup session = Setup.tandem("SESSION", "SYNC");
    SetupOutcome bounded = new SetupOutcome(session.name(), session.label(), 1, 300, 300, 0, true, List.of(), null, null,
        null, null);
    List<SetupSummary> summary = SetupSummary.of(List.of(Setup.CONTROL, session),
        List.of(outcome(Setup.CONTROL, 1, 1_000, 2, 10_000), bounded));

    assertThat(ReportWriter.targets(summary))
        .containsExactly("Tandem SESSION SYNC: U* 0.30 of the control's (target ≥ 0.60): open (this U* is only a lower bound)");
    assertThat(summary.get(1).uStarIsLowerBound()).isTrue();
  }

  @Test
  void issue14sTargets_aShareOfTheControlPerSetup_andEveryTandemSetupAboveDeltaManager() {
    Setup async = Setup.tandem("MODIFIED_ATTRIBUTE", "ASYNC");
    Setup sync = Setup.tandem("MODIFIED_ATTRIBUTE", "SYNC");
    List<SetupSummary> summary = SetupSummary.of(List.of(Setup.CONTROL, sync, async, Setup.DELTA_MANAGER),
        List.of(outcome(Setup.CONTROL, 1, 1_000, 2, 10_000), outcome(sync, 1, 400, 3, 5_000),
            outcome(async, 1, 800, 3, 5_000), outcome(Setup.DELTA_MANAGER, 1, 700, 3, 5_000)));

    assertThat(ReportWriter.targets(summary)).containsExactly(
        "Tandem MODIFIED_ATTRIBUTE SYNC: U* 0.40 of the control's (target ≥ 0.75): MISSED",
        "Tandem MODIFIED_ATTRIBUTE SYNC: U* 400 against Tomcat DeltaManager's 700 (target: above it): MISSED",
        "Tandem MODIFIED_ATTRIBUTE ASYNC: U* 0.80 of the control's (target ≥ 0.85): MISSED",
        "Tandem MODIFIED_ATTRIBUTE ASYNC: U* 800 against Tomcat DeltaManager's 700 (target: above it): met");
  }

  @Test
  void issue29sTarget_everySyncSetupAboveDeltaManagerWithSynchronousAcks_asyncSetupsNotJudgedAgainstIt() {
    Setup async = Setup.tandem("MODIFIED_ATTRIBUTE", "ASYNC");
    Setup sync = Setup.tandem("MODIFIED_ATTRIBUTE", "SYNC");
    Setup session = Setup.tandem("SESSION", "SYNC");
    List<SetupSummary> summary = SetupSummary.of(List.of(sync, session, async, Setup.DELTA_MANAGER_SYNC),
        List.of(outcome(sync, 1, 400, 3, 5_000), outcome(session, 1, 200, 3, 5_000), outcome(async, 1, 800, 3, 5_000),
            outcome(Setup.DELTA_MANAGER_SYNC, 1, 250, 3, 5_000)));

    assertThat(ReportWriter.targets(summary)).containsExactly(
        "Tandem MODIFIED_ATTRIBUTE SYNC: U* 400 against Tomcat DeltaManager's with synchronous acks 250 (target: above "
            + "it): met",
        "Tandem SESSION SYNC: U* 200 against Tomcat DeltaManager's with synchronous acks 250 (target: above it): MISSED");
  }

  @Test
  void writesJsonMarkdownAndBothCharts(@TempDir Path directory) throws Exception {
    ReportWriter.write(report(), directory);

    JsonNode json = new ObjectMapper().readTree(directory.resolve(ReportWriter.JSON).toFile());
    assertThat(json.get("outcomes")).hasSize(8);
    assertThat(json.get("summary").get(1).get("setup").asText()).isEqualTo("tandem-modified-attribute-sync");
    assertThat(json.get("summary").get(1).get("replicationCpuMicrosPerRequest").asDouble()).isZero();
    assertThat(json.get("summary").get(3).get("replicationCpuMicrosPerRequest").isNull())
        .as("BackupManager's second repetition failed, its first has a control: measured").isFalse();
    assertThat(json.get("environment").get("cfsPeriodMicros").asLong()).isEqualTo(100_000);
    JsonNode threads = json.get("outcomes").get(1).get("overhead").get("threadCpu");
    assertThat(threads.get("namesFrom").asText()).isEqualTo(ThreadCpu.FROM_DUMP);
    assertThat(threads.get("groups").get(1).get("group").asText()).isEqualTo(ThreadGroups.TANDEM_TRANSPORT);
    assertThat(threads.get("groups").get(1).get("systemMicrosPerRequest").asDouble()).isEqualTo(45);
    assertThat(threads.get("all").get("voluntarySwitchesPerRequest").asDouble()).isEqualTo(3.7);
    assertThat(json.get("outcomes").get(1).get("peak").has("threadCpu")).as("only the fixed-load step counts threads")
        .isFalse();
    assertThat(Files.readString(directory.resolve(ReportWriter.MARKDOWN))).startsWith("# Tandem load benchmark");
    for (String chart : List.of(ReportWriter.P90_CHART, ReportWriter.USTAR_CHART)) {
      byte[] png = Files.readAllBytes(directory.resolve(chart));
      assertThat(png).as(chart).startsWith(0x89, 'P', 'N', 'G');
    }
  }
}
