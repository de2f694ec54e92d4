package io.tandem.benchmarks.load;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What one step measured. Only requests whose intended send time fell inside the window are counted, whether they
 * completed inside it or during the drain after it.
 *
 * @param users virtual users of the step
 * @param window length of the measured window
 * @param requests requests that ended, successfully or not
 * @param errors failed requests by kind; every kind is present, most with 0
 * @param responseTime from the intended send time to the last byte of a 2xx response: driver and server delays both
 *     count, so the driver's own lateness cannot hide a stall (no coordinated omission)
 * @param sendLag from the intended send time to the moment the driver began the request (connect or write): the
 *     driver's own lateness, for judging the step, not the server
 * @param throughput 2xx responses per second of window
 * @param connectionsOpened connections the driver opened for requests of the window: once keep-alive holds and the
 *     warm-up opened one per user, this counts reconnects only (0 in a steady state)
 * @param sessionsStarted responses that gave the user a new session cookie
 * @param driverCpu CPU time of the driver's event loops over the window, in cores (1.0 = one core busy); NaN when the
 *     JVM cannot measure thread CPU time
 * @param processCpu CPU time of the whole JVM over the window, in cores; NaN when not measurable
 * @param loopBusy largest fraction of the window an event loop spent outside {@code select()}
 * @param valid false when the driver did not keep up, so the latencies describe the driver rather than the server
 * @param invalidReasons why the step is not valid; empty when it is
 */
public record StepResult(
    int users,
    Duration window,
    long requests,
    Map<ErrorKind, Long> errors,
    LatencySummary responseTime,
    LatencySummary sendLag,
    double throughput,
    long connectionsOpened,
    long sessionsStarted,
    double driverCpu,
    double processCpu,
    double loopBusy,
    boolean valid,
    List<String> invalidReasons) {

  public StepResult {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(responseTime, "responseTime");
    Objects.requireNonNull(sendLag, "sendLag");
    EnumMap<ErrorKind, Long> all = new EnumMap<>(ErrorKind.class);
    for (ErrorKind kind : ErrorKind.values()) {
      all.put(kind, errors.getOrDefault(kind, 0L));
    }
    errors = Collections.unmodifiableMap(all);
    invalidReasons = List.copyOf(invalidReasons);
    if (valid != invalidReasons.isEmpty()) {
      throw new IllegalArgumentException("valid = " + valid + " but invalidReasons = " + invalidReasons);
    }
  }

  /** Failed requests of every kind. */
  public long errorCount() {
    return errors.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Failed requests of one kind. */
  public long errors(ErrorKind kind) {
    return errors.get(kind);
  }

  /** Requests that got a 2xx response. */
  public long successes() {
    return requests - errorCount();
  }

  /** Driver CPU per successful request: what the driver costs, for comparing clients; zero when unknown. */
  public Duration driverCpuPerRequest() {
    long ok = successes();
    if (ok == 0 || Double.isNaN(driverCpu)) {
      return Duration.ZERO;
    }
    return Duration.ofNanos(Math.round(driverCpu * window.toNanos() / ok));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "%d users, window %s: %d requests (%d errors %s), %.1f/s, response %s, send lag %s, %d connections, "
            + "%d sessions, driver CPU %.3f cores, process CPU %.3f cores, loop busy %.0f%%%s",
        users, Violations.format(window), requests, errorCount(), errors, throughput, responseTime, sendLag,
        connectionsOpened, sessionsStarted, driverCpu, processCpu, loopBusy * 100,
        valid ? "" : ", INVALID: " + String.join("; ", invalidReasons));
  }
}
