package io.tandem.core.logging;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A WARN that repeats at most once per interval per key, saying how many were suppressed, so a misbehaving peer
 * or application cannot flood Tomcat's log. The counters, not the log, are the complete record.
 *
 * <p>Two bounds hold whatever the keys: at most {@code maxKeys} keys are remembered (the least recently used is
 * forgotten first, so a flood of distinct keys cannot grow memory), and at most {@code maxLinesPerInterval} lines
 * are written per interval across all keys (a flood of distinct keys cannot flood the log either); lines held back
 * by that budget are reported as a number on the next line written.
 *
 * <p>Implementation notes: the windows and the budget are guarded by this object's lock, which is held only to
 * decide; the line is written after it is released.
 */
public final class RateLimitedLog {
  static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  static final int DEFAULT_MAX_KEYS = 1024;
  static final int DEFAULT_MAX_LINES_PER_INTERVAL = 20;

  private final Logger logger;
  private final LongSupplier nanoClock;
  private final long intervalNanos;
  private final int maxLinesPerInterval;
  private final Map<String, Window> windows;
  private long budgetOpenedAt;
  private int linesInBudget;
  private long heldBack;

  public RateLimitedLog(Logger logger) {
    this(logger, System::nanoTime);
  }

  /** With the default bounds, on {@code nanoClock}: the engine's ticker, so that its log is a function of its time. */
  public RateLimitedLog(Logger logger, LongSupplier nanoClock) {
    this(logger, nanoClock, DEFAULT_INTERVAL_NANOS, DEFAULT_MAX_KEYS, DEFAULT_MAX_LINES_PER_INTERVAL);
  }

  /** For tests: an injected clock and bounds. */
  public RateLimitedLog(Logger logger, LongSupplier nanoClock, long intervalNanos, int maxKeys, int maxLinesPerInterval) {
    if (intervalNanos <= 0 || maxKeys <= 0 || maxLinesPerInterval <= 0) {
      throw new IllegalArgumentException("interval, maxKeys and maxLinesPerInterval must be positive");
    }
    this.logger = logger;
    this.nanoClock = nanoClock;
    this.intervalNanos = intervalNanos;
    this.maxLinesPerInterval = maxLinesPerInterval;
    this.windows = new LinkedHashMap<>(64, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
        return size() > maxKeys;
      }
    };
    this.budgetOpenedAt = nanoClock.getAsLong() - intervalNanos;
  }

  public void warn(String key, String message) {
    String line;
    synchronized (this) {
      long now = nanoClock.getAsLong();
      Window window = windows.computeIfAbsent(key, k -> new Window(now - intervalNanos));
      if (now - window.openedAt < intervalNanos) {
        window.suppressed++;
        return;
      }
      if (now - budgetOpenedAt >= intervalNanos) {
        budgetOpenedAt = now;
        linesInBudget = 0;
      }
      if (linesInBudget >= maxLinesPerInterval) {
        heldBack++;
        window.suppressed++;
        return;
      }
      linesInBudget++;
      window.openedAt = now;
      StringBuilder text = new StringBuilder(message);
      if (window.suppressed > 0) {
        text.append(" (").append(window.suppressed).append(" similar messages suppressed)");
      }
      if (heldBack > 0) {
        text.append(" (").append(heldBack).append(" other warnings held back by the log budget)");
      }
      window.suppressed = 0;
      heldBack = 0;
      line = text.toString();
    }
    logger.log(Level.WARNING, line);
  }

  /** How many keys are remembered; never more than {@code maxKeys}. */
  public synchronized int keys() {
    return windows.size();
  }

  private static final class Window {
    long openedAt;
    long suppressed;

    Window(long openedAt) {
      this.openedAt = openedAt;
    }
  }
}
