package io.tandem.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnitsTest {
  @Test
  void format_printsDurationsAsOperatorsWriteThem() {
    assertThat(Units.format(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(Units.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Units.format(Duration.ofSeconds(2))).isEqualTo("2s");
    assertThat(Units.format(Duration.ofMinutes(10))).isEqualTo("10m");
    assertThat(Units.format(Duration.ofHours(1))).isEqualTo("1h");
    assertThat(Units.format(Duration.ZERO)).isEqualTo("0ms");
  }

  @Test
  void format_thenParse_givesTheSameDuration() {
    for (Duration d : List.of(Duration.ofMillis(1), Duration.ofMillis(999), Duration.ofSeconds(90), Duration.ofMinutes(61), Duration.ofHours(25))) {
      assertThat(Units.parseDuration(Units.format(d))).isEqualTo(d);
    }
  }

  /** Issue "Hostile network", item 5: a zero duration was reported as PT0S. */
  @Test
  void invalidDuration_isReportedInOperatorUnits() {
    assertThatThrownBy(() -> ReplicationConfig.builder().ackTimeout(Duration.ZERO).build())
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("ackTimeout: 0ms must be a positive duration")
        .hasMessageNotContaining("PT0S");
  }
}
