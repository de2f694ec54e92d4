package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class UnknownSessionsTest {
  private static final Duration SETTLE = Duration.ofSeconds(5);
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final UnknownSessions unknown = new UnknownSessions(clock, SETTLE, Duration.ofSeconds(30), 100);

  private void settledView() {
    unknown.viewChanged();
    clock.advance(SETTLE);
  }

  @Test
  void beforeTheFirstView_nothingIsRemembered() {
    assertThat(unknown.viewRecentlyChanged()).isTrue();
    assertThat(unknown.remember("x", unknown.beforeAsking())).isFalse();
    assertThat(unknown.isRemembered("x")).isFalse();
  }

  @Test
  void inASettledView_anIdFoundNowhere_isRememberedForItsLifetime() {
    settledView();

    assertThat(unknown.remember("x", unknown.beforeAsking())).isTrue();
    assertThat(unknown.isRemembered("x")).isTrue();
    clock.advance(Duration.ofSeconds(30));
    assertThat(unknown.isRemembered("x")).isFalse();
  }

  @Test
  void shortlyAfterAViewChange_nothingIsRemembered() {
    settledView();
    unknown.viewChanged();
    clock.advance(SETTLE.minusMillis(1));

    assertThat(unknown.remember("x", unknown.beforeAsking())).isFalse();
    assertThat(unknown.isRemembered("x")).isFalse();
  }

  @Test
  void aViewChangeWhileTheClusterWasAsked_isNotRemembered_evenOnceSettled() {
    settledView();
    long token = unknown.beforeAsking();
    unknown.viewChanged(); // the answers may predate sessions moving in this view
    clock.advance(SETTLE);

    assertThat(unknown.remember("x", token)).isFalse();
    assertThat(unknown.isRemembered("x")).isFalse();
  }

  @Test
  void aViewChange_forgetsEverything() {
    settledView();
    unknown.remember("x", unknown.beforeAsking());

    unknown.viewChanged();

    assertThat(unknown.isRemembered("x")).isFalse();
    assertThat(unknown.size()).isZero();
  }

  @Test
  void anIdThatAppearsHere_isForgotten() {
    settledView();
    unknown.remember("x", unknown.beforeAsking());
    unknown.remember("y", unknown.beforeAsking());

    unknown.appeared("x");

    assertThat(unknown.isRemembered("x")).isFalse();
    assertThat(unknown.isRemembered("y")).isTrue();
  }
}
