package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.testing.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

  @Test
  void consume_beyondTheBurst_waitsInProportionToTheDebt() {
    ManualClock clock = new ManualClock(Instant.EPOCH);
    TokenBucket bucket = new TokenBucket(clock, 1000, 2000);

    assertThat(bucket.millisUntilAvailable()).isZero();
    bucket.consume(2500);
    assertThat(bucket.millisUntilAvailable()).isBetween(500L, 502L);

    clock.advance(Duration.ofMillis(400));
    assertThat(bucket.millisUntilAvailable()).isBetween(100L, 102L);
    clock.advance(Duration.ofMillis(101));
    assertThat(bucket.millisUntilAvailable()).isZero();
  }

  @Test
  void refill_isCappedAtCapacity() {
    ManualClock clock = new ManualClock(Instant.EPOCH);
    TokenBucket bucket = new TokenBucket(clock, 1000, 2000);

    clock.advance(Duration.ofHours(1));
    bucket.consume(2001);

    assertThat(bucket.millisUntilAvailable()).isPositive();
  }
}
