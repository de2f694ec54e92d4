package io.tandem.core.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when a test says so. Thread-safe. */
public final class ManualClock implements InstantSource {
  private volatile Instant now;

  public ManualClock(Instant start) {
    this.now = start;
  }

  @Override
  public Instant instant() {
    return now;
  }

  public synchronized void advance(Duration by) {
    now = now.plus(by);
  }
}
