package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LoadProfileTest {

  @Test
  void of_givesTheIssueDefaults() {
    LoadProfile profile = LoadProfile.of(100);

    assertThat(profile.users()).isEqualTo(100);
    assertThat(profile.pagesPerSession()).isEqualTo(20);
    assertThat(profile.attributeBytes()).isEqualTo(1024);
    assertThat(profile.thinkTime()).isEqualTo(Duration.ofSeconds(1));
    assertThat(profile.thinkJitter()).isEqualTo(0.10);
  }

  @Test
  void constructor_manyBadValues_reportsEveryFieldWithValueAndRangeAtOnce() {
    InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
        () -> new LoadProfile(0, 0, -1, Duration.ofMillis(-5), 1.5, null, Duration.ZERO, Duration.ofMillis(-1), 1L));

    assertThat(e.violations()).containsExactly(
        "users = 0 (must be between 1 and 1000000)",
        "pagesPerSession = 0 (must be between 1 and 1000000)",
        "attributeBytes = -1 (must be between 0 and 16777216)",
        "thinkTime = -5ms (must be at least 0s and at most 86400s)",
        "thinkJitter = 1.5 (must be at least 0 and less than 1)",
        "warmUp is missing (must be a duration)",
        "window = 0s (must be more than 0s and at most 86400s)",
        "requestTimeout = -1ms (must be more than 0s and at most 86400s)");
    assertThat(e).hasMessageStartingWith("Invalid load profile: users = 0");
  }

  @Test
  void wither_oneBadValue_namesOnlyThatField() {
    assertThatThrownBy(() -> LoadProfile.of(10).withThinkTime(Duration.ofSeconds(1), Double.NaN))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("Invalid load profile: thinkJitter = NaN (must be at least 0 and less than 1)");
    assertThatThrownBy(() -> LoadProfile.of(10).withUsers(2_000_000))
        .hasMessageContaining("users = 2000000");
  }

  @Test
  void nextThinkNanos_staysWithinJitterAndCoversBothSides() {
    LoadProfile profile = LoadProfile.of(1).withThinkTime(Duration.ofSeconds(1), 0.10);
    SplittableRandom random = new SplittableRandom(7);
    long below = 0;
    long above = 0;
    for (int i = 0; i < 10_000; i++) {
      long nanos = profile.nextThinkNanos(random);
      assertThat(nanos).isBetween(900_000_000L, 1_100_000_000L);
      if (nanos < 950_000_000L) {
        below++;
      } else if (nanos > 1_050_000_000L) {
        above++;
      }
    }
    assertThat(below).isGreaterThan(2_000);
    assertThat(above).isGreaterThan(2_000);
  }

  @Test
  void nextThinkNanos_withoutJitter_isExact() {
    LoadProfile profile = LoadProfile.of(1).withThinkTime(Duration.ofMillis(250), 0.0);

    assertThat(profile.nextThinkNanos(new SplittableRandom(1))).isEqualTo(250_000_000L);
  }

  @Test
  void driverSettings_badValues_areAllNamed() {
    InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
        () -> new DriverSettings(0, 1.2, Duration.ZERO));

    assertThat(e.violations()).hasSize(3);
    assertThat(e.violations().get(0)).startsWith("eventLoops = 0");
    assertThat(e.violations().get(1)).startsWith("maxLoopBusy = 1.2");
    assertThat(e.violations().get(2)).startsWith("maxSendLagP99 = 0s");
  }
}
