package io.tandem.core.logging;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A WARN that repeats at most once per interval per key, saying how many were suppressed, so a misbehaving peer
 * or application cannot flood Tomcat's log. The counters, not the log, are the complete record.
 */
public final class RateLimitedLog {
  private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Logger logger;
  private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

  public RateLimitedLog(Logger logger) {
    this.logger = logger;
  }

  public void warn(String key, String message) {
    long now = System.nanoTime();
    Window window = windows.computeIfAbsent(key, k -> new Window(now - INTERVAL_NANOS));
    long suppressed = window.tryOpen(now);
    if (suppressed >= 0) {
      logger.log(Level.WARNING, suppressed == 0 ? message : message + " (" + suppressed + " similar messages suppressed)");
    }
  }

  private static final class Window {
    private final AtomicLong openedAt;
    private final AtomicLong suppressed = new AtomicLong();

    Window(long openedAt) {
      this.openedAt = new AtomicLong(openedAt);
    }

    /** The number suppressed since the last logged message, or -1 when this one is suppressed. */
    long tryOpen(long now) {
      long opened = openedAt.get();
      if (now - opened >= INTERVAL_NANOS && openedAt.compareAndSet(opened, now)) {
        return suppressed.getAndSet(0);
      }
      suppressed.incrementAndGet();
      return -1;
    }
  }
}
