package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.benchmarks.load.ErrorKind;
import io.tandem.benchmarks.load.LatencySummary;
import io.tandem.benchmarks.load.StepResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StepRecordTest {

  private static final Duration BUDGET = Duration.ofMillis(800);
  private final CpuCap cap = CpuCap.create(0.25, Duration.ofMillis(100));

  @AfterEach
  void removeGroups() {
    cap.close();
  }

  private static StepResult result(long p90Millis, Map<ErrorKind, Long> errors, boolean driverValid) {
    Duration p90 = Duration.ofMillis(p90Millis);
    return new StepResult(200, Duration.ofSeconds(10), 2_000, errors,
        new LatencySummary(2_000, p90.dividedBy(2), p90, p90.multipliedBy(2), p90.multipliedBy(3)), LatencySummary.EMPTY,
        200, 0, 100, 0.05, 0.1, 0.1, driverValid, driverValid ? List.of() : List.of("loop busy 95%"));
  }

  /** Both nodes: 1 s of CPU each over the 10 s window, 10 kB replicated each, the given failures and log lines. */
  private static List<NodeSnapshot> nodes(long replicationFailures, long failureLines) {
    NodeSnapshot node = new NodeSnapshot(1_000_000_000L, 10_000, replicationFailures, failureLines, 3);
    return List.of(node, node);
  }

  @Test
  void aStepWithinTheBudgetReportsPerRequestCosts() {
    StepRecord step = StepRecord.judge("tandem-session-sync", 1, "coarse", result(120, Map.of(), true), nodes(0, 0), true,
        BUDGET, cap, false);

    assertThat(step.withinBudget()).isTrue();
    assertThat(step.strictlyWithinBudget()).isTrue();
    assertThat(step.notes()).isEmpty();
    assertThat(step.p90Millis()).isEqualTo(120.0);
    assertThat(step.serverCpuCores()).isEqualTo(0.2);
    assertThat(step.cpuMillisPerRequest()).isEqualTo(1.0); // 2 s of CPU over 2,000 successful requests
    assertThat(step.bytesReplicatedPerRequest()).isEqualTo(10.0);
    assertThat(step.throttledPeriods()).isEqualTo(6);
  }

  @Test
  void aSlowP90ErrorsOrALateDriverPutTheStepOverTheBudget() {
    assertThat(StepRecord.judge("s", 1, "coarse", result(801, Map.of(), true), nodes(0, 0), true, BUDGET, cap, false)
        .notes()).containsExactly("p90 801 ms over the 800 ms budget");
    StepRecord errors = StepRecord.judge("s", 1, "coarse", result(100, Map.of(ErrorKind.STATUS, 2L), true), nodes(0, 0),
        true, BUDGET, cap, false);
    assertThat(errors.withinBudget()).isFalse();
    assertThat(errors.errorsByKind()).containsExactly(Map.entry("STATUS", 2L));
    StepRecord late = StepRecord.judge("s", 1, "coarse", result(100, Map.of(), false), nodes(0, 0), true, BUDGET, cap, false);
    assertThat(late.withinBudget()).isFalse();
    assertThat(late.notes()).singleElement().asString().contains("driver did not keep up").contains("loop busy 95%");
  }

  @Test
  void replicationFailuresKeepTheStepWithinTheBudgetButNotStrictly() {
    StepRecord tandem = StepRecord.judge("tandem-session-sync", 1, "coarse", result(100, Map.of(), true), nodes(2, 0),
        true, BUDGET, cap, false);
    assertThat(tandem.withinBudget()).isTrue();
    assertThat(tandem.strictlyWithinBudget()).isFalse();
    assertThat(tandem.replicationFailures()).isEqualTo(4);

    // Tomcat's managers have no counters: their logged failures count instead.
    StepRecord tomcat = StepRecord.judge("tomcat-backup", 1, "coarse", result(100, Map.of(), true), nodes(-1, 5), true,
        BUDGET, cap, true);
    assertThat(tomcat.replicationFailures()).isEqualTo(10);
    assertThat(tomcat.strictlyWithinBudget()).isFalse();

    // The control replicates nothing, so nothing can fail.
    StepRecord control = StepRecord.judge("no-replication", 1, "coarse", result(100, Map.of(), true), nodes(-1, 0), false,
        BUDGET, cap, false);
    assertThat(control.strictlyWithinBudget()).isTrue();
  }

  @Test
  void unknownCountersStayUnknown() {
    NodeSnapshot unknown = new NodeSnapshot(-1, -1, -1, 0, -1);
    NodeSnapshot later = new NodeSnapshot(5, 7, 1, 2, 4);
    assertThat(later.since(unknown)).isEqualTo(new NodeSnapshot(-1, -1, -1, 2, -1));
    assertThat(later.plus(unknown).cpuNanos()).isEqualTo(-1);
    assertThat(later.since(new NodeSnapshot(1, 2, 0, 1, 1))).isEqualTo(new NodeSnapshot(4, 5, 1, 1, 3));
  }
}
