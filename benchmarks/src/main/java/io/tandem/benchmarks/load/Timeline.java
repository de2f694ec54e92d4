package io.tandem.benchmarks.load;

/**
 * The phases of one step on the {@link System#nanoTime()} scale: warm-up, measured window, drain. All comparisons
 * subtract first, as {@code nanoTime} values may wrap.
 *
 * <p>A request belongs to the window when its <em>intended</em> send time does, wherever it completes: a request the
 * driver or server delayed past the window's end still counts, with its full delay. No request is started for an
 * intended time at or after the window's end, and every started request ends by {@link #hardStop} at the latest,
 * because its timeout runs from its intended time.
 */
record Timeline(long start, long measureStart, long measureEnd, long hardStop) {

  // Room for the loop to notice the last timeouts and close its sockets.
  private static final long GRACE_NANOS = 200_000_000L;

  static Timeline of(long start, LoadProfile profile) {
    long measureStart = start + profile.warmUp().toNanos();
    long measureEnd = measureStart + profile.window().toNanos();
    return new Timeline(start, measureStart, measureEnd,
        measureEnd + profile.requestTimeout().toNanos() + GRACE_NANOS);
  }

  /** True when a request intended at {@code intended} is recorded. */
  boolean measured(long intended) {
    return intended - measureStart >= 0 && intended - measureEnd < 0;
  }

  /** True when a request intended at {@code intended} is still sent. */
  boolean sends(long intended) {
    return intended - measureEnd < 0;
  }
}
