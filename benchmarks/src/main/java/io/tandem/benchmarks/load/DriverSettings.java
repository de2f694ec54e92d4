package io.tandem.benchmarks.load;

import java.time.Duration;

/**
 * How the driver itself runs and when it distrusts its own measurement.
 *
 * <p>A step is only evidence about the server if the driver kept up. Two symptoms say it did not: its event loops
 * spent more than {@code maxLoopBusy} of the window outside {@code select()} (no slack left, so timers fire late), or
 * requests left later than {@code maxSendLagP99} after their intended send time at the 99th percentile. Latencies stay
 * honest either way (they are measured from the intended send time), but they then describe the driver, so the step
 * is marked invalid.
 *
 * @param eventLoops selector threads; users are dealt to them round-robin. One holds thousands of users
 * @param maxLoopBusy fraction of the window an event loop may spend outside {@code select()}, in (0, 1]
 * @param maxSendLagP99 largest acceptable 99th percentile of (actual − intended) send time
 */
public record DriverSettings(int eventLoops, double maxLoopBusy, Duration maxSendLagP99) {

  public static final int MAX_EVENT_LOOPS = 64;
  public static final DriverSettings DEFAULT = new DriverSettings(1, 0.80, Duration.ofMillis(100));

  public DriverSettings {
    new Violations("driver settings")
        .check(eventLoops >= 1 && eventLoops <= MAX_EVENT_LOOPS, "eventLoops", eventLoops,
            "between 1 and " + MAX_EVENT_LOOPS)
        .check(maxLoopBusy > 0.0 && maxLoopBusy <= 1.0, "maxLoopBusy", maxLoopBusy, "more than 0 and at most 1")
        .checkDuration(maxSendLagP99, "maxSendLagP99", Duration.ZERO, false, Duration.ofHours(1))
        .throwIfAny();
  }

  public DriverSettings withEventLoops(int value) {
    return new DriverSettings(value, maxLoopBusy, maxSendLagP99);
  }
}
