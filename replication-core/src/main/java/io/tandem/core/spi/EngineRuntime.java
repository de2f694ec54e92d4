package io.tandem.core.spi;

import java.time.InstantSource;
import java.util.Objects;

/**
 * The time and the threads a replication engine runs on, injected as Caffeine takes a {@code Ticker} and an {@code
 * Executor}: production passes {@link #system}; a test or the deterministic simulation passes a manual ticker, a manual
 * wall clock and schedulers that run only when it moves time, and then no engine code reads the JVM's clocks or starts
 * a thread for its periodic work.
 *
 * @param ticker monotonic nanoseconds: what the engine measures (JVM pauses, view-shrink windows, the deadlines of the
 *     waits it makes) and nothing a peer sees
 * @param wallClock milliseconds since the epoch: session times (last access, expiry), tombstone and remembered-id
 *     lifetimes, touch deadlines, the state transfer's rate. These are wall-clock uses that docs/protocol.md 8.4 lists
 *     as a gap; they stay on this clock until issue 27 moves them
 * @param schedulers makes the engine's {@link Scheduler} for each {@link Scheduler.Lane}
 * @param waiter how a caller's thread waits for a reply or a ring change inside the engine
 */
public record EngineRuntime(Ticker ticker, InstantSource wallClock, Scheduler.Factory schedulers, Waiter waiter) {
  public EngineRuntime {
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(wallClock, "wallClock");
    Objects.requireNonNull(schedulers, "schedulers");
    Objects.requireNonNull(waiter, "waiter");
  }

  /** Callers' threads block while they wait ({@link Waiter#blocking()}), as in production. */
  public EngineRuntime(Ticker ticker, InstantSource wallClock, Scheduler.Factory schedulers) {
    this(ticker, wallClock, schedulers, Waiter.blocking());
  }

  /**
   * Production: {@link System#nanoTime()}, {@code wallClock}, the threads of {@link Scheduler.Factory#system()} and
   * blocking waits that arm no timer per wait ({@link Waiter#timerless()}).
   */
  public static EngineRuntime system(InstantSource wallClock) {
    return new EngineRuntime(Ticker.system(), wallClock, Scheduler.Factory.system(), Waiter.timerless());
  }
}
