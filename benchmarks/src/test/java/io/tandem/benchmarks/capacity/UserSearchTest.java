package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UserSearchTest {

  private static UserSearch.Step capacity(int capacity, List<Integer> asked) {
    return capacity(capacity, capacity, asked);
  }

  /** Within the budget up to {@code capacity} users; replication fails above {@code strictCapacity}. */
  private static UserSearch.Step capacity(int capacity, int strictCapacity, List<Integer> asked) {
    return (phase, users) -> {
      asked.add(users);
      boolean within = users <= capacity;
      boolean strict = within && users <= strictCapacity;
      return new StepRecord("s", 1, phase, users, 100, within ? 0 : 3, Map.of(), 10, 1, within ? 100 : 900, 1, 1, 0.2,
          0.1, 1, -1, strict ? 0 : 2, -1, 0.01, true, within, strict, within ? List.of() : List.of("over"), null);
    };
  }

  @Test
  void growsUntilTheVerdictFlipsThenBisectsToTheResolution() throws Exception {
    List<Integer> asked = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(100, 10_000, 2.0, 0.05, 5, 20).run(capacity(730, asked), s -> {});

    assertThat(asked.subList(0, 4)).containsExactly(100, 200, 400, 800);
    assertThat(asked.subList(4, asked.size())).allSatisfy(users -> assertThat(users).isBetween(400, 800));
    assertThat(outcome.uStar()).isLessThanOrEqualTo(730).isGreaterThanOrEqualTo((int) (730 * 0.95));
    assertThat(outcome.firstFailure()).isGreaterThan(730);
    assertThat(outcome.firstFailure() - outcome.uStar()).isLessThanOrEqualTo(Math.max(5, (int) (outcome.uStar() * 0.05)));
    assertThat(outcome.lowerBound()).isFalse();
    assertThat(outcome.steps()).extracting(StepRecord::phase).startsWith("coarse", "coarse", "coarse", "coarse")
        .contains("fine");
  }

  @Test
  void shrinksWhenTheFirstStepAlreadyFails() throws Exception {
    List<Integer> asked = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(100, 10_000, 2.0, 0.05, 5, 20).run(capacity(30, asked), s -> {});

    assertThat(asked.subList(0, 3)).containsExactly(100, 50, 25);
    assertThat(outcome.uStar()).isBetween(25, 30);
  }

  @Test
  void reportsZeroWhenNotEvenOneUserFits() throws Exception {
    List<Integer> asked = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(4, 100, 2.0, 0.05, 1, 20).run(capacity(0, asked), s -> {});

    assertThat(asked).containsExactly(4, 2, 1);
    assertThat(outcome.uStar()).isZero();
    assertThat(outcome.strictUStar()).isZero();
  }

  @Test
  void stopsAtTheMaximumAndSaysTheResultIsALowerBound() throws Exception {
    List<Integer> asked = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(100, 300, 2.0, 0.05, 5, 20).run(capacity(5_000, asked), s -> {});

    assertThat(asked).containsExactly(100, 200, 300);
    assertThat(outcome.uStar()).isEqualTo(300);
    assertThat(outcome.lowerBound()).isTrue();
    assertThat(outcome.firstFailure()).isZero();
  }

  @Test
  void neverRunsMoreStepsThanAllowed() throws Exception {
    List<Integer> asked = new ArrayList<>();
    List<StepRecord> reported = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(100, 10_000, 2.0, 0.001, 1, 5).run(capacity(777, asked), reported::add);

    assertThat(asked).hasSize(5);
    assertThat(reported).hasSize(5);
    assertThat(outcome.steps()).hasSize(5);
    assertThat(outcome.uStar()).isEqualTo(600); // 100, 200, 400, 800 (over), then 600
    assertThat(outcome.lowerBound()).isFalse();
  }

  @Test
  void runningOutOfStepsBeforeAnyFailureLeavesALowerBound() throws Exception {
    UserSearch.Outcome outcome = new UserSearch(100, 10_000, 2.0, 0.05, 5, 3).run(capacity(5_000, new ArrayList<>()), s -> {});

    assertThat(outcome.uStar()).isEqualTo(400);
    assertThat(outcome.lowerBound()).isTrue();
  }

  @Test
  void strictUStarCountsOnlyStepsWithoutReplicationFailures() throws Exception {
    List<Integer> asked = new ArrayList<>();
    UserSearch.Outcome outcome = new UserSearch(100, 10_000, 2.0, 0.05, 5, 20).run(capacity(450, 300, asked), s -> {});

    assertThat(outcome.uStar()).isBetween(428, 450);
    assertThat(outcome.strictUStar()).isEqualTo(200); // 400 and the fine steps passed, but lost replication
  }

  @Test
  void refusesASearchThatCannotEnd() {
    assertThatThrownBy(() -> new UserSearch(100, 50, 2.0, 0.05, 5, 10)).hasMessageContaining("startUsers <= maxUsers");
    assertThatThrownBy(() -> new UserSearch(100, 500, 1.0, 0.05, 5, 10)).hasMessageContaining("growth > 1");
    assertThatThrownBy(() -> new UserSearch(100, 500, 2.0, 0.05, 5, 0)).hasMessageContaining("maxSteps >= 1");
  }
}
