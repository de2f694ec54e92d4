package io.tandem.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.System.Logger;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final List<String> lines = new ArrayList<>();
  private final long interval = TimeUnit.SECONDS.toNanos(10);

  private RateLimitedLog log(int maxKeys, int maxLines) {
    return new RateLimitedLog(new Capturing(lines), now::get, interval, maxKeys, maxLines);
  }

  @Test
  void warn_sameKeyRepeated_oneLinePerIntervalCountingTheSuppressed() {
    RateLimitedLog log = log(16, 100);
    for (int i = 0; i < 1000; i++) {
      log.warn("auth:10.0.0.1", "refused");
    }
    now.addAndGet(interval);
    log.warn("auth:10.0.0.1", "refused");

    assertThat(lines).containsExactly("refused", "refused (999 similar messages suppressed)");
  }

  /** Issue "Hostile network", item 3: 1,000 distinct keys wrote 1,000 lines and were remembered forever. */
  @Test
  void warn_thousandsOfDistinctKeys_linesAndKeysStayBounded() {
    RateLimitedLog log = log(64, 20);
    for (int i = 0; i < 10_000; i++) {
      log.warn("auth:10.0." + (i / 256) + "." + (i % 256) + ":" + (40000 + i), "refused " + i);
    }

    assertThat(lines).hasSize(20);
    assertThat(log.keys()).isEqualTo(64);
    now.addAndGet(interval);
    log.warn("another", "after the flood");
    assertThat(lines.get(20)).startsWith("after the flood").contains("9980 other warnings held back");
  }

  private static final class Capturing implements Logger {
    private final List<String> lines;

    Capturing(List<String> lines) {
      this.lines = lines;
    }

    @Override
    public String getName() {
      return "capturing";
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      lines.add(msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      lines.add(format);
    }
  }
}
