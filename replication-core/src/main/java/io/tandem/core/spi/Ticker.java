package io.tandem.core.spi;

/**
 * The engine's monotonic time, in nanoseconds, as {@link System#nanoTime()}: only the difference between two readings
 * means anything. What the engine measures (a JVM pause, a deadline, how long a wait lasted) it measures on this, never
 * on the wall clock, which an operator or NTP may set back or forth.
 *
 * <p>Injected through {@link EngineRuntime}, as Caffeine takes its {@code Ticker}, so that a test or the deterministic
 * simulation moves time itself. One ticker may be read by any thread; readings never decrease.
 */
@FunctionalInterface
public interface Ticker {
  /** Nanoseconds since an arbitrary origin. */
  long read();

  /**
   * This ticker as an {@link java.time.InstantSource} whose instants mean nothing but their differences: for lifetimes
   * the engine measures locally (tombstones, remembered ids, a transfer rate), which must neither end early nor last
   * for ever when an operator or NTP steps the wall clock. Never a time of day.
   */
  default java.time.InstantSource asLocalClock() {
    return () -> java.time.Instant.ofEpochSecond(0, read());
  }

  /** The JVM's monotonic clock: what the engine read directly before it was injected. */
  static Ticker system() {
    return System::nanoTime;
  }
}
