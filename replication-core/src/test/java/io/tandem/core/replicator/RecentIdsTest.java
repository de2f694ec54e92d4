package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecentIdsTest {
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final RecentIds ids = new RecentIds(clock, Duration.ofSeconds(10), 3);

  @Test
  void contains_untilItsTimeRunsOut_thenNotAndTheEntryIsDropped() {
    ids.add("a");
    clock.advance(Duration.ofMillis(9_999));
    assertThat(ids.contains("a")).isTrue();

    clock.advance(Duration.ofMillis(1));

    assertThat(ids.contains("a")).isFalse();
    assertThat(ids.size()).isZero();
  }

  @Test
  void spansItsLifetime_onlyOnceALifetimeHasPassedSinceItWasMade() {
    clock.advance(Duration.ofMillis(9_999));
    assertThat(ids.spansItsLifetime()).isFalse();

    clock.advance(Duration.ofMillis(1));

    assertThat(ids.spansItsLifetime()).isTrue();
  }

  @Test
  void add_whenFull_pushesOutTheOldestOnly() {
    ids.add("a");
    ids.add("b");
    ids.add("c");

    ids.add("d");

    assertThat(ids.contains("a")).isFalse();
    assertThat(ids.contains("b")).isTrue();
    assertThat(ids.contains("c")).isTrue();
    assertThat(ids.contains("d")).isTrue();
    assertThat(ids.size()).isEqualTo(3);
  }

  @Test
  void add_again_remembersItFromNow_andMakesItTheNewest() {
    ids.add("a");
    ids.add("b");
    clock.advance(Duration.ofSeconds(5));
    ids.add("a");
    ids.add("c");

    ids.add("d"); // full: "b" is now the oldest

    assertThat(ids.contains("b")).isFalse();
    clock.advance(Duration.ofSeconds(6)); // 11 s after the first add of "a", 6 s after the second
    assertThat(ids.contains("a")).isTrue();
  }

  @Test
  void add_dropsExpiredEntriesFirst_soTheyDoNotPushOutLiveOnes() {
    ids.add("old-1");
    ids.add("old-2");
    clock.advance(Duration.ofSeconds(10));
    ids.add("a");
    ids.add("b");
    ids.add("c");

    assertThat(ids.contains("a")).isTrue();
    assertThat(ids.size()).isEqualTo(3);
  }

  @Test
  void remove_andClear_forget() {
    ids.add("a");
    ids.add("b");

    ids.remove("a");
    assertThat(ids.contains("a")).isFalse();
    assertThat(ids.contains("b")).isTrue();

    ids.clear();
    assertThat(ids.isEmpty()).isTrue();
    assertThat(ids.contains("b")).isFalse();
  }

  @Test
  void aFloodOfDistinctIds_staysWithinTheCapacity() {
    RecentIds bounded = new RecentIds(clock, Duration.ofSeconds(30), 100);
    for (int i = 0; i < 10_000; i++) {
      bounded.add("random-" + i);
    }

    assertThat(bounded.size()).isEqualTo(100);
    assertThat(bounded.contains("random-9999")).isTrue();
    assertThat(bounded.contains("random-9899")).isFalse();
  }

  @Test
  void invalidSettings_areRefused() {
    assertThatThrownBy(() -> new RecentIds(clock, Duration.ZERO, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecentIds(clock, Duration.ofSeconds(1), 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
