package io.tandem.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Collects the refused fields of one configuration value, then throws them together. */
final class Violations {

  private final String what;
  private final List<String> found = new ArrayList<>();

  Violations(String what) {
    this.what = what;
  }

  /** Records {@code field = value (must be allowed)} unless {@code ok}. */
  Violations check(boolean ok, String field, Object value, String allowed) {
    if (!ok) {
      String shown = value instanceof Duration d ? format(d) : String.valueOf(value);
      found.add(field + " = " + shown + " (must be " + allowed + ")");
    }
    return this;
  }

  /** A null duration is one violation, not a NullPointerException that would hide the others. */
  Violations checkDuration(Duration value, String field, Duration min, boolean minInclusive, Duration max) {
    if (value == null) {
      found.add(field + " is missing (must be a duration)");
      return this;
    }
    boolean aboveMin = minInclusive ? value.compareTo(min) >= 0 : value.compareTo(min) > 0;
    String allowed = (minInclusive ? "at least " : "more than ") + format(min) + " and at most " + format(max);
    return check(aboveMin && value.compareTo(max) <= 0, field, value, allowed);
  }

  void throwIfAny() {
    if (!found.isEmpty()) {
      throw new InvalidConfigException(what, found);
    }
  }

  /** Durations carry their unit in messages and logs: {@code 500ms}, {@code 2s}, {@code 1500us}. */
  static String format(Duration d) {
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    if (d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
      return d.getSeconds() + "s"; // toNanos() would overflow; such a value is refused anyway
    }
    long nanos = d.toNanos();
    if (nanos == 0) {
      return "0s";
    }
    if (nanos % 1_000_000_000L == 0) {
      return nanos / 1_000_000_000L + "s";
    }
    if (nanos % 1_000_000L == 0) {
      return nanos / 1_000_000L + "ms";
    }
    if (nanos % 1_000L == 0) {
      return nanos / 1_000L + "us";
    }
    return nanos + "ns";
  }
}
