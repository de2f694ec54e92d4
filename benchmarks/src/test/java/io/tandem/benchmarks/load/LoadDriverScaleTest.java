package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Thousands of users on one event loop thread, at the default think time: every one is served over its own
 * connection. Functional only: the CPU figures are printed in the step's log line, not asserted.
 */
class LoadDriverScaleTest {

  private static final int USERS = 2_000;

  @Test
  void run_twoThousandUsersOnOneEventLoop_eachServedOverItsOwnConnection() throws Exception {
    LoadProfile profile = LoadProfile.of(USERS)
        .withTiming(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2));
    try (NioOkServer server = new NioOkServer()) {
      StepResult result = new LoadDriver().run(profile, List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(server.accepted()).isEqualTo(USERS);
      // With think 1 s ± 10 % and an even start over the first second, every user sends in a 2 s window.
      assertThat(result.successes()).isGreaterThan(USERS);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.open()).isZero());
    }
  }
}
