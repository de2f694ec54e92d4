package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Replication CPU per request: a setup's server CPU per request at the fixed load, less the control's. */
class SetupSummaryTest {
  private static final Setup ATTRIBUTE = Setup.tandem("MODIFIED_ATTRIBUTE", "SYNC");
  private static final Setup ASYNC = Setup.tandem("MODIFIED_ATTRIBUTE", "ASYNC");

  /** The fixed-load step, with server CPU (both nodes) per request in ms; -1: unknown. */
  private static StepRecord overhead(Setup setup, int repeat, double cpuMillisPerRequest) {
    return new StepRecord(setup.name(), repeat, "overhead", 1_500, 22_000, 0, Map.of(), 1_500, 1, 2, 3, 4, 0.4, 0.2,
        cpuMillisPerRequest, -1, 0, 0, 0.01, true, true, true, List.of(), null);
  }

  private static SetupOutcome outcome(Setup setup, int repeat, StepRecord overhead) {
    return new SetupOutcome(setup.name(), setup.label(), repeat, 2_000, 2_000, 2_100, false, List.of(), overhead, null,
        null, null);
  }

  private static SetupOutcome measured(Setup setup, int repeat, double cpuMillisPerRequest) {
    return outcome(setup, repeat, overhead(setup, repeat, cpuMillisPerRequest));
  }

  private static SetupSummary summary(Setup setup, List<Setup> order, List<SetupOutcome> outcomes) {
    return SetupSummary.of(order, outcomes).stream().filter(s -> s.setup().equals(setup.name())).findFirst().orElseThrow();
  }

  @Test
  void replicationCpu_isTheMedianOverRepetitionsOfTheSetupLessTheControlInTheSameRepetition() {
    List<SetupOutcome> outcomes = List.of(
        measured(Setup.CONTROL, 1, 0.30), measured(ATTRIBUTE, 1, 0.56),
        measured(Setup.CONTROL, 2, 0.40), measured(ATTRIBUTE, 2, 0.70),
        measured(Setup.CONTROL, 3, 0.20), measured(ATTRIBUTE, 3, 0.52));

    SetupSummary attribute = summary(ATTRIBUTE, List.of(Setup.CONTROL, ATTRIBUTE), outcomes);

    // 260, 300 and 320 µs: each repetition against its own control, not the control's median (0.30 ms)
    assertThat(attribute.replicationCpuMicrosPerRequest()).isCloseTo(300.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(attribute.cpuMillisPerRequest()).isEqualTo(0.56);
    assertThat(summary(Setup.CONTROL, List.of(Setup.CONTROL, ATTRIBUTE), outcomes).replicationCpuMicrosPerRequest())
        .isZero();
  }

  @Test
  void replicationCpu_withoutAControlInTheRun_isNotMeasured() {
    SetupSummary attribute = summary(ATTRIBUTE, List.of(ATTRIBUTE), List.of(measured(ATTRIBUTE, 1, 0.56)));

    assertThat(attribute.replicationCpuMicrosPerRequest()).isNull();
    assertThat(attribute.cpuMillisPerRequest()).isEqualTo(0.56);
  }

  @Test
  void replicationCpu_aRepetitionWithoutBothFixedLoadSteps_isLeftOut() {
    List<SetupOutcome> outcomes = List.of(
        measured(Setup.CONTROL, 1, 0.30), outcome(ATTRIBUTE, 1, null), // the setup has no fixed-load step
        outcome(Setup.CONTROL, 2, null), measured(ATTRIBUTE, 2, 0.60), // the control has none
        SetupOutcome.failed(Setup.CONTROL, 3, "node n1 did not start"), measured(ATTRIBUTE, 3, 0.60),
        measured(Setup.CONTROL, 4, 0.25), measured(ATTRIBUTE, 4, 0.60));

    assertThat(summary(ATTRIBUTE, List.of(Setup.CONTROL, ATTRIBUTE), outcomes).replicationCpuMicrosPerRequest())
        .as("only repetition 4 has both").isCloseTo(350.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(summary(ATTRIBUTE, List.of(Setup.CONTROL, ATTRIBUTE), outcomes.subList(0, 6))
        .replicationCpuMicrosPerRequest()).as("no repetition has both").isNull();
  }

  @Test
  void replicationCpu_unknownCpuOnEitherSide_isNotMeasured() {
    assertThat(summary(ATTRIBUTE, List.of(Setup.CONTROL, ATTRIBUTE),
        List.of(measured(Setup.CONTROL, 1, -1), measured(ATTRIBUTE, 1, 0.56))).replicationCpuMicrosPerRequest()).isNull();
    assertThat(summary(ATTRIBUTE, List.of(Setup.CONTROL, ATTRIBUTE),
        List.of(measured(Setup.CONTROL, 1, 0.30), measured(ATTRIBUTE, 1, -1))).replicationCpuMicrosPerRequest()).isNull();
  }

  @Test
  void replicationCpu_cheaperThanTheControl_staysNegative() {
    // Noise on a shared machine can put a setup under the control: reported as measured, not hidden or clamped.
    assertThat(summary(ASYNC, List.of(Setup.CONTROL, ASYNC),
        List.of(measured(Setup.CONTROL, 1, 0.30), measured(ASYNC, 1, 0.29))).replicationCpuMicrosPerRequest())
        .isCloseTo(-10.0, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void overControl_isOnlyEverTheSameRepetition() {
    assertThat(SetupSummary.overControl(measured(ATTRIBUTE, 2, 0.5), measured(Setup.CONTROL, 1, 0.3),
        SetupSummary::cpuMicrosPerRequest)).isNull();
    assertThat(SetupSummary.overControl(measured(ATTRIBUTE, 1, 0.5), null, SetupSummary::cpuMicrosPerRequest)).isNull();
  }

  @Test
  void markdown_hasTheReplicationCpuColumn_andADashWhereItWasNotMeasured() {
    List<Setup> setups = List.of(Setup.CONTROL, ATTRIBUTE, ASYNC);
    List<SetupOutcome> outcomes = List.of(measured(Setup.CONTROL, 1, 0.30), measured(ATTRIBUTE, 1, 0.56),
        outcome(ASYNC, 1, null));
    BenchReport report = new BenchReport("./tandem bench", "a", "b",
        new BenchReport.Environment("cap", true, 0.25, 100_000, 2, "17", "10.1.59", "Linux"),
        new BenchReport.Parameters(setups.stream().map(Setup::name).toList(), 1, 20, 1024, 1000, 0.1, 10_000, 30_000,
            800, 400, 12_000, 2.0, 0.05, 10, 1_500, 16),
        SetupSummary.of(setups, outcomes), outcomes);

    String markdown = ReportWriter.markdown(report);

    assertThat(markdown).contains("| server CPU ms/req | replication CPU µs/req | replicated bytes/req |")
        .contains("| 0.56 | +260 | - |")
        .contains("| no replication | 2000 (2000) | 1.00 | 2000 | 1.00 | - | - | 0.30 | +0 | - |");
    assertThat(markdown.lines().filter(l -> l.startsWith("| Tandem MODIFIED_ATTRIBUTE ASYNC |")).findFirst().orElseThrow())
        .contains("| - | - | - | - | - |");
  }
}
