package io.tandem.core.testing;

import io.tandem.core.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Monotonic nanoseconds that move only when a test says so: directly ({@link #advance}, a JVM that did not run for
 * that long) or through a {@link ManualScheduler} (time passing with the engine's timers running on time). Thread-safe.
 */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves time on by {@code by}, running nothing: what every reader sees next is {@code by} later. */
  public void advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("a monotonic clock does not go back: " + by);
    }
    nanos.addAndGet(by.toNanos());
  }

  /** Moves time on to {@code at}, if it is later than now. */
  void moveTo(long at) {
    nanos.accumulateAndGet(at, Math::max);
  }
}
