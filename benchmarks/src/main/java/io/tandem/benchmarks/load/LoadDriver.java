package io.tandem.benchmarks.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * Runs one step of the growing-session workload against a set of nodes and reports what it measured.
 *
 * <p>Virtual users are dealt round-robin to the targets (sticky for the whole step) and to the event loops. Each user
 * holds one keep-alive connection, opened at its first request and reopened only when the server closes it. A loop is
 * one selector thread; one holds thousands of users, because a user costs a socket and a few hundred bytes, not a
 * thread. The first requests are spread evenly over one think time, so users do not all arrive at once.
 *
 * <p>{@link #run} ends by itself: no request is sent for an intended time after the window, and each request in
 * flight ends at its timeout at the latest, so a step takes at most warm-up + window + request timeout (plus a
 * fraction of a second to close). Every socket is closed before it returns.
 */
public final class LoadDriver {

  private static final System.Logger LOG = System.getLogger(LoadDriver.class.getName());
  // Beyond the hard stop a loop has always ended unless it is broken; this only bounds the wait for a broken one.
  private static final long JOIN_SLACK_MILLIS = 5_000;

  private final DriverSettings settings;
  private final ResponseListener listener;

  public LoadDriver() {
    this(DriverSettings.DEFAULT);
  }

  public LoadDriver(DriverSettings settings) {
    this(settings, ResponseListener.NONE);
  }

  LoadDriver(DriverSettings settings, ResponseListener listener) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Runs one step and blocks until it is over.
   *
   * @throws InterruptedException if the calling thread is interrupted; the step is then abandoned and its sockets
   *     closed before this returns
   * @throws IllegalArgumentException if a target's host cannot be resolved
   */
  public StepResult run(LoadProfile profile, List<Target> targets) throws InterruptedException {
    Objects.requireNonNull(profile, "profile");
    List<InetSocketAddress> addresses = resolve(targets);
    int loopCount = Math.min(settings.eventLoops(), profile.users());
    LOG.log(System.Logger.Level.INFO, "Load step: {0}; targets {1}; {2} event loop(s)", profile.describe(), targets,
        loopCount);

    long start = System.nanoTime();
    Timeline timeline = Timeline.of(start, profile);
    List<List<VirtualUser>> usersByLoop = new ArrayList<>();
    for (int i = 0; i < loopCount; i++) {
      usersByLoop.add(new ArrayList<>());
    }
    long thinkNanos = profile.thinkTime().toNanos();
    for (int u = 0; u < profile.users(); u++) {
      int t = u % targets.size();
      VirtualUser user = new VirtualUser(u, addresses.get(t),
          new PageScript(u, targets.get(t), profile.pagesPerSession(), profile.attributeBytes()));
      user.intended = start + (long) ((double) thinkNanos * u / profile.users());
      usersByLoop.get(u % loopCount).add(user);
    }

    List<EventLoop> loops = openLoops(usersByLoop, profile, timeline);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < loops.size(); i++) {
      Thread thread = new Thread(loops.get(i), "tandem-load-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    awaitLoops(loops, threads, timeline);

    StepResult result = summarize(profile, loops);
    if (result.valid()) {
      LOG.log(System.Logger.Level.INFO, "Load step done: {0}", result);
    } else {
      LOG.log(System.Logger.Level.WARNING, "Load step done but INVALID: {0}", result);
    }
    return result;
  }

  private static List<InetSocketAddress> resolve(List<Target> targets) {
    Objects.requireNonNull(targets, "targets");
    if (targets.isEmpty()) {
      throw new InvalidConfigException("targets", List.of("targets = [] (must name at least one node)"));
    }
    List<InetSocketAddress> addresses = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    for (Target target : targets) {
      Objects.requireNonNull(target, "target");
      // Resolved once here, not per connection: a name lookup in the event loop would stall every user on it.
      InetSocketAddress address = new InetSocketAddress(target.host(), target.port());
      if (address.isUnresolved()) {
        unresolved.add("host = " + target.host() + " (must resolve to an address)");
      }
      addresses.add(address);
    }
    if (!unresolved.isEmpty()) {
      throw new InvalidConfigException("targets", unresolved);
    }
    return addresses;
  }

  private List<EventLoop> openLoops(List<List<VirtualUser>> usersByLoop, LoadProfile profile, Timeline timeline) {
    List<EventLoop> loops = new ArrayList<>();
    try {
      for (int i = 0; i < usersByLoop.size(); i++) {
        loops.add(new EventLoop(usersByLoop.get(i), profile, timeline, listener, i == 0, profile.seed() * 31 + i));
      }
    } catch (IOException e) {
      for (EventLoop loop : loops) {
        loop.discard();
      }
      throw new UncheckedIOException("cannot open a selector for the load driver", e);
    }
    return loops;
  }

  private static void awaitLoops(List<EventLoop> loops, List<Thread> threads, Timeline timeline)
      throws InterruptedException {
    try {
      for (Thread thread : threads) {
        long leftMillis = Math.max(0, (timeline.hardStop() - System.nanoTime()) / 1_000_000) + JOIN_SLACK_MILLIS;
        thread.join(leftMillis);
      }
    } catch (InterruptedException e) {
      stopAll(loops, threads);
      throw e;
    }
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        stopAll(loops, threads);
        throw new IllegalStateException("event loop " + thread.getName() + " did not end at the hard stop");
      }
    }
    for (EventLoop loop : loops) {
      if (loop.failure() != null) {
        throw new IllegalStateException("an event loop failed: " + loop.failure(), loop.failure());
      }
    }
  }

  /** Stops the loops and waits briefly for them to close their sockets; keeps the caller's interrupt status. */
  private static void stopAll(List<EventLoop> loops, List<Thread> threads) {
    for (EventLoop loop : loops) {
      loop.stop();
    }
    boolean interrupted = Thread.interrupted();
    for (Thread thread : threads) {
      try {
        thread.join(JOIN_SLACK_MILLIS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private StepResult summarize(LoadProfile profile, List<EventLoop> loops) {
    Histogram response = new Histogram(3);
    Histogram sendLag = new Histogram(3);
    long[] errors = new long[ErrorKind.values().length];
    long requests = 0;
    long connections = 0;
    long sessions = 0;
    long busiest = 0;
    long cpu = 0;
    boolean cpuKnown = true;
    long processCpu = LoopStats.UNKNOWN;
    for (EventLoop loop : loops) {
      LoopStats stats = loop.stats();
      response.add(stats.responseMicros);
      sendLag.add(stats.sendLagMicros);
      for (int k = 0; k < errors.length; k++) {
        errors[k] += stats.errors[k];
      }
      requests += stats.requests;
      connections += stats.connectionsOpened;
      sessions += stats.sessionsStarted;
      busiest = Math.max(busiest, stats.busyNanos);
      cpuKnown &= stats.cpuNanos != LoopStats.UNKNOWN;
      cpu += Math.max(0, stats.cpuNanos);
      if (stats.processCpuNanos != LoopStats.UNKNOWN) {
        processCpu = stats.processCpuNanos;
      }
    }
    Map<ErrorKind, Long> errorsByKind = new EnumMap<>(ErrorKind.class);
    for (ErrorKind kind : ErrorKind.values()) {
      errorsByKind.put(kind, errors[kind.ordinal()]);
    }
    double windowNanos = profile.window().toNanos();
    double loopBusy = busiest / windowNanos;
    LatencySummary lag = LatencySummary.ofMicros(sendLag);
    List<String> invalid = new ArrayList<>();
    if (loopBusy > settings.maxLoopBusy()) {
      invalid.add(String.format(Locale.ROOT,
          "an event loop was busy %.0f%% of the window (limit %.0f%%): the driver, not the server, set the pace",
          loopBusy * 100, settings.maxLoopBusy() * 100));
    }
    if (lag.p99().compareTo(settings.maxSendLagP99()) > 0) {
      invalid.add("requests left " + Violations.format(roundMillis(lag.p99())) + " after their intended time at p99 "
          + "(limit " + Violations.format(settings.maxSendLagP99()) + "): the driver was late");
    }
    return new StepResult(profile.users(), profile.window(), requests, errorsByKind,
        LatencySummary.ofMicros(response), lag, response.getTotalCount() / (windowNanos / 1e9), connections,
        sessions, cpuKnown ? cpu / windowNanos : Double.NaN,
        processCpu == LoopStats.UNKNOWN ? Double.NaN : processCpu / windowNanos, loopBusy, invalid.isEmpty(),
        invalid);
  }

  private static Duration roundMillis(Duration d) {
    return Duration.ofMillis(Math.round(d.toNanos() / 1e6));
  }
}
