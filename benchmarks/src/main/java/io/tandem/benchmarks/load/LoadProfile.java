package io.tandem.benchmarks.load;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * One step of the growing-session workload: how many virtual users, what each page does and how long the step is
 * measured. Validated at construction; every refused field is reported at once (see {@link InvalidConfigException}).
 *
 * <p>Each user runs sessions of {@code pagesPerSession} pages. Page {@code i} adds one attribute {@code a<i>} of
 * {@code attributeBytes} bytes and lists all of them, so the session grows to K attributes, then the user forgets its
 * cookie and starts a new session. Between a response and the next request the user thinks for {@code thinkTime}
 * {@code ± thinkJitter} (uniform); the jitter keeps users that started together from staying in lock step.
 *
 * <p>Requests whose <em>intended</em> send time falls in the warm-up are sent but not recorded; those intended inside
 * the {@code window} are recorded. The step ends when the window closes and the last request intended inside it has
 * completed or hit {@code requestTimeout}, so a step never takes longer than warm-up + window + timeout.
 *
 * @param users virtual users, each with its own keep-alive connection
 * @param pagesPerSession K, pages in one session before the user starts a new one
 * @param attributeBytes S, size of the attribute each page adds (the server builds it; the request only names it)
 * @param thinkTime mean pause between a response and the user's next request
 * @param thinkJitter half-width of the uniform think-time spread as a fraction of {@code thinkTime}, in [0, 1)
 * @param warmUp time before the measured window whose requests are not recorded
 * @param window measured window
 * @param requestTimeout limit from a request's intended send time to its last response byte; also bounds the drain
 * @param seed seed of the think-time jitter, so two runs of one profile send on the same schedule
 */
public record LoadProfile(
    int users,
    int pagesPerSession,
    int attributeBytes,
    Duration thinkTime,
    double thinkJitter,
    Duration warmUp,
    Duration window,
    Duration requestTimeout,
    long seed) {

  public static final int MAX_USERS = 1_000_000;
  public static final int MAX_PAGES_PER_SESSION = 1_000_000;
  public static final int MAX_ATTRIBUTE_BYTES = 16 * 1024 * 1024;
  private static final Duration MAX_DURATION = Duration.ofHours(24);

  public static final int DEFAULT_PAGES_PER_SESSION = 20;
  public static final int DEFAULT_ATTRIBUTE_BYTES = 1024;
  public static final Duration DEFAULT_THINK_TIME = Duration.ofSeconds(1);
  public static final double DEFAULT_THINK_JITTER = 0.10;
  public static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(10);
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(30);
  // Well above the 0.8 s p90 budget, so a slow response is measured as slow rather than cut off as an error.
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

  public LoadProfile {
    new Violations("load profile")
        .check(users >= 1 && users <= MAX_USERS, "users", users, "between 1 and " + MAX_USERS)
        .check(pagesPerSession >= 1 && pagesPerSession <= MAX_PAGES_PER_SESSION, "pagesPerSession", pagesPerSession,
            "between 1 and " + MAX_PAGES_PER_SESSION)
        .check(attributeBytes >= 0 && attributeBytes <= MAX_ATTRIBUTE_BYTES, "attributeBytes", attributeBytes,
            "between 0 and " + MAX_ATTRIBUTE_BYTES)
        .checkDuration(thinkTime, "thinkTime", Duration.ZERO, true, MAX_DURATION)
        .check(thinkJitter >= 0.0 && thinkJitter < 1.0, "thinkJitter", thinkJitter, "at least 0 and less than 1")
        .checkDuration(warmUp, "warmUp", Duration.ZERO, true, MAX_DURATION)
        .checkDuration(window, "window", Duration.ZERO, false, MAX_DURATION)
        .checkDuration(requestTimeout, "requestTimeout", Duration.ZERO, false, MAX_DURATION)
        .throwIfAny();
  }

  /** The default workload (K = 20 pages, S = 1 KiB, think 1 s ± 10 %, warm-up 10 s, window 30 s) for {@code users}. */
  public static LoadProfile of(int users) {
    return new LoadProfile(users, DEFAULT_PAGES_PER_SESSION, DEFAULT_ATTRIBUTE_BYTES, DEFAULT_THINK_TIME,
        DEFAULT_THINK_JITTER, DEFAULT_WARM_UP, DEFAULT_WINDOW, DEFAULT_REQUEST_TIMEOUT, 1L);
  }

  public LoadProfile withUsers(int value) {
    return new LoadProfile(value, pagesPerSession, attributeBytes, thinkTime, thinkJitter, warmUp, window,
        requestTimeout, seed);
  }

  public LoadProfile withPagesPerSession(int value) {
    return new LoadProfile(users, value, attributeBytes, thinkTime, thinkJitter, warmUp, window, requestTimeout,
        seed);
  }

  public LoadProfile withAttributeBytes(int value) {
    return new LoadProfile(users, pagesPerSession, value, thinkTime, thinkJitter, warmUp, window, requestTimeout,
        seed);
  }

  public LoadProfile withThinkTime(Duration value, double jitter) {
    return new LoadProfile(users, pagesPerSession, attributeBytes, value, jitter, warmUp, window, requestTimeout,
        seed);
  }

  public LoadProfile withTiming(Duration warmUpValue, Duration windowValue, Duration requestTimeoutValue) {
    return new LoadProfile(users, pagesPerSession, attributeBytes, thinkTime, thinkJitter, warmUpValue, windowValue,
        requestTimeoutValue, seed);
  }

  public LoadProfile withSeed(long value) {
    return new LoadProfile(users, pagesPerSession, attributeBytes, thinkTime, thinkJitter, warmUp, window,
        requestTimeout, value);
  }

  /** One think time, uniform in {@code thinkTime × [1 − jitter, 1 + jitter)}. */
  long nextThinkNanos(SplittableRandom random) {
    long mean = thinkTime.toNanos();
    if (thinkJitter == 0.0 || mean == 0) {
      return mean;
    }
    double factor = 1.0 + thinkJitter * (2.0 * random.nextDouble() - 1.0);
    return Math.round(mean * factor);
  }

  /** One line for the log: what this step asks of the system under test. */
  String describe() {
    return users + " users, " + pagesPerSession + " pages/session, " + attributeBytes + " B attributes, think "
        + Violations.format(thinkTime) + " ±" + Math.round(thinkJitter * 100) + "%, warm-up "
        + Violations.format(warmUp) + ", window " + Violations.format(window) + ", timeout "
        + Violations.format(requestTimeout);
  }
}
