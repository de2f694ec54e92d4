package io.tandem.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The units operators write in {@code context.xml}: durations such as {@code 500ms} and sizes such as {@code 8MiB},
 * parsed, and durations printed back the same way (never {@code PT0.5S}). Public so that the container adapter
 * and the transport settings parse and print exactly as the replication settings do.
 */
public final class Units {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kib|mib|gib|kb|mb|gb)?");

  private Units() {}

  /** A duration with a unit: {@code ms}, {@code s}, {@code m} or {@code h}. */
  public static Duration parseDuration(String text) {
    Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a duration with a unit such as 500ms, 2s, 5m or 1h");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }

  /** A byte size: a number with an optional unit {@code B}, {@code KiB}, {@code MiB}, {@code GiB} (KB etc. mean the same). */
  public static long parseSize(String text) {
    Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 65536, 64KiB or 8MiB");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor =
        switch (unit) {
          case "kib", "kb" -> 1L << 10;
          case "mib", "mb" -> 1L << 20;
          case "gib", "gb" -> 1L << 30;
          default -> 1L;
        };
    return Math.multiplyExact(amount, factor);
  }

  /** A duration as an operator writes it, in the largest unit that keeps it exact: {@code 500ms}, {@code 2s}, {@code 10m}. */
  public static String format(Duration d) {
    if (d == null) {
      return "(none)";
    }
    long ms = d.toMillis();
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms != 0 && ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
