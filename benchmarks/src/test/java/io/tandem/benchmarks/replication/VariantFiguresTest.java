package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class VariantFiguresTest {

  @Test
  void since_twoMarks_giveTheWindowRateCpuPerUpdateAndCores() {
    ProcessWindow window = new Mark(5_000_000_000L, 2_000_000_000L, 10_000).since(new Mark(3_000_000_000L, 1_000_000_000L, 0));
    assertThat(window.updatesPerSecond()).isEqualTo(5_000.0);
    assertThat(window.cpuMicrosPerUpdate()).isEqualTo(100.0); // 1 s of CPU over 10,000 updates
    assertThat(window.cores()).isEqualTo(0.5);
  }

  @Test
  void since_noUpdates_hasNoCpuPerUpdate() {
    ProcessWindow idle = new Mark(2, 10, 7).since(new Mark(1, 5, 7));
    assertThat(idle.cpuMicrosPerUpdate()).isNaN();
    assertThat(idle.updatesPerSecond()).isZero();
  }

  @Test
  void since_marksOutOfOrder_throwsNamingBoth() {
    assertThatThrownBy(() -> new Mark(1, 10, 5).since(new Mark(2, 5, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of order");
    assertThatThrownBy(() -> new Mark(2, 5, 0).since(new Mark(1, 10, 0))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void of_ownerAndBuddy_throughputIsTheOwnersAndEachProcessDividesByItsOwnCount() {
    ProcessWindow owner = new ProcessWindow(1_000_000_000L, 400_000_000L, 8_000); // 50 µs per update
    ProcessWindow buddy = new ProcessWindow(1_100_000_000L, 330_000_000L, 8_800); // 37.5 µs per update
    VariantFigures figures = VariantFigures.of(owner, buddy);
    assertThat(figures.updatesPerSecond()).isEqualTo(8_000.0);
    assertThat(figures.ownerMicrosPerUpdate()).isEqualTo(50.0);
    assertThat(figures.buddyMicrosPerUpdate()).isEqualTo(37.5);
    assertThat(figures.pairMicrosPerUpdate()).isEqualTo(87.5);
    assertThat(figures.buddyCores()).isCloseTo(0.3, within(1e-12));
  }

  @Test
  void ratioTo_tandemOverFloor_isPairCpuPerUpdateOverPairCpuPerUpdate() {
    VariantFigures tandem = new VariantFigures(5_000, 60, 40, 0.5, 0.4);
    VariantFigures floor = new VariantFigures(20_000, 15, 10, 0.5, 0.3);
    assertThat(tandem.ratioTo(floor)).isEqualTo(4.0);
    assertThat(tandem.ownerRatioTo(floor)).isEqualTo(4.0);
    assertThat(tandem.buddyRatioTo(floor)).isEqualTo(4.0);
  }

  @Test
  void ratioTo_aFloorWithoutUpdatesOrCpu_isNaN() {
    VariantFigures tandem = new VariantFigures(5_000, 60, 40, 0.5, 0.4);
    assertThat(tandem.ratioTo(new VariantFigures(0, Double.NaN, Double.NaN, 0, 0))).isNaN();
    assertThat(tandem.ownerRatioTo(new VariantFigures(1, 0, 1, 0, 0))).isNaN();
  }

  @Test
  void ratios_reportEveryMeasuredFloorAgainstTandem_andNoneWithoutTandem() {
    VariantOutcome tandem = outcome("tandem", 60, 40);
    VariantOutcome perUpdate = outcome("floor-per-update", 20, 20);
    VariantOutcome batched = outcome("floor-batched", 10, 10);
    VariantOutcome broken = VariantOutcome.failed(Variant.FLOOR_BATCHED, "boom", "logs");

    assertThat(ReplicationReport.ratios(List.of(tandem, perUpdate, batched))).containsExactly(
        new ReplicationReport.Ratio("floor-per-update", 2.5, 3.0, 2.0),
        new ReplicationReport.Ratio("floor-batched", 5.0, 6.0, 4.0));
    assertThat(ReplicationReport.ratios(List.of(tandem, broken))).isEmpty();
    assertThat(ReplicationReport.ratios(List.of(perUpdate, batched))).isEmpty();
  }

  @Test
  void ratios_tandemAsyncIsNoFloor() {
    VariantOutcome tandem = outcome("tandem", 60, 40);
    VariantOutcome async = outcome("tandem-async", 6, 4);
    VariantOutcome perUpdate = outcome("floor-per-update", 20, 20);

    assertThat(ReplicationReport.ratios(List.of(tandem, async, perUpdate)))
        .containsExactly(new ReplicationReport.Ratio("floor-per-update", 2.5, 3.0, 2.0));
    assertThat(ReplicationReport.ratios(List.of(async, perUpdate))).as("tandem-async is not Tandem SYNC").isEmpty();
  }

  @Test
  void unappliedAfterDrain_producedLessApplied_andUnknownForTheFloors() {
    assertThat(drained(10_000L, 9_990L).unappliedAfterDrain()).isEqualTo(10);
    assertThat(drained(10_000L, 10_000L).unappliedAfterDrain()).isZero();
    assertThat(outcome("floor-batched", 10, 10).unappliedAfterDrain()).isNull();
  }

  @Test
  void markdown_showsWhatTheBuddyAppliedBesideWhatTheOwnerAccepted() {
    VariantOutcome async = new VariantOutcome("tandem-async", null, 1000.0, 5.0, 20.0, 25.0, 0.5, 0.2, 12_000, 11_990,
        300, 1000, 0, "none", 0, 0, false, 12_345L, 12_340L, true, "sent:400,fulls:0", 1L, "logs");
    ReplicationReport report = new ReplicationReport("cmd", "a", "b", "2 cores", "cap", true,
        new ReplicationReport.Parameters(16, 1024, 10, 1, 5, 0.5, 100, 500, List.of("tandem-async")),
        new FrameSizes(1147, 31, "computed"), List.of(async), ReplicationReport.ratios(List.of(async)));

    assertThat(ReplicationReportWriter.markdown(report))
        .contains("| tandem-async | 1,000 | 5.0 | 20.0 | 25.0 | 0.50 | 0.20 | 12,000 | 11,990 (300) | 0 | 5 of 12,345 |")
        .contains("owner engine sent:400,fulls:0", "1 JVM pause(s) detected");
    assertThat(ReplicationBenchRun.consoleLine(async))
        .contains("buddy applied 11,990 updates in 300 messages; after the drain 5 of 12,345 produced not on the buddy",
            "JVM PAUSES DETECTED: 1");
  }

  private static VariantOutcome drained(Long produced, Long applied) {
    return new VariantOutcome("tandem-async", null, 1000.0, 5.0, 5.0, 10.0, 0.5, 0.5, 1000, 1000, 100, 1000, 0, "none",
        0, 0, false, produced, applied, true, "sent:1", 0L, "logs");
  }

  static VariantOutcome outcome(String variant, double owner, double buddy) {
    return new VariantOutcome(variant, null, 1000.0, owner, buddy, owner + buddy, 0.5, 0.5, 1000, 1000, 1000, 1000, 0,
        "none", 0, 0, false, null, null, null, null, null, "logs");
  }
}
