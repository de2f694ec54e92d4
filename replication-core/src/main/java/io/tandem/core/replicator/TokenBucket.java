package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.InstantSource;

/**
 * Paces state transfer to a byte rate so re-protection after a view change leaves live traffic its budget. The
 * bucket may go into debt by one batch: a batch is never split, the next one just waits longer.
 *
 * <p>Implementation notes: guarded by {@code this}. Refilled by the clock it is given: the engine's ticker
 * ({@code Ticker.asLocalClock}), since on the wall clock a step back stalled it until the clock caught up.
 */
final class TokenBucket {
  private final InstantSource clock;
  private final long bytesPerSecond;
  private final long capacity;
  @GuardedBy("this")
  private double tokens;
  @GuardedBy("this")
  private long lastRefillMillis;

  TokenBucket(InstantSource clock, long bytesPerSecond, long capacity) {
    this.clock = clock;
    this.bytesPerSecond = bytesPerSecond;
    this.capacity = capacity;
    this.tokens = capacity;
    this.lastRefillMillis = clock.millis(); // the engine's ticker (Ticker.asLocalClock)
  }

  /** Milliseconds until a send may start; zero when it may start now. */
  synchronized long millisUntilAvailable() {
    refill();
    return tokens > 0 ? 0 : (long) Math.ceil(-tokens * 1000.0 / bytesPerSecond) + 1;
  }

  synchronized void consume(long bytes) {
    refill();
    tokens -= bytes;
  }

  @GuardedBy("this")
  private void refill() {
    long now = clock.millis(); // the engine's ticker (Ticker.asLocalClock)
    if (now > lastRefillMillis) {
      tokens = Math.min(capacity, tokens + (now - lastRefillMillis) * bytesPerSecond / 1000.0);
      lastRefillMillis = now;
    }
  }
}
