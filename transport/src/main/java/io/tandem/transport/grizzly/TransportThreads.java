package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The transport's own threads, apart from Grizzly's selectors. One {@code tandem-transport-timer-<node>} thread runs
 * the deadline sweep, connect timeouts of queued requests, redials, closes of connections kept for their replies and
 * the {@link io.tandem.core.spi.PeerWatcher} events, which keeps those in order. Member probes and redial checks block
 * on plain sockets, so each has a small pool of its own ({@code tandem-transport-probe-<node>-<n>}, {@code
 * tandem-transport-check-<node>-<n>}), kept off the timer and the selectors.
 *
 * <p>Implementation notes: the executors are thread-safe and final; {@link #shutdownNow} ends them all.
 */
final class TransportThreads {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final NodeId local;
  private final ScheduledExecutorService timer;
  private final ExecutorService probes;
  private final ExecutorService checks;

  TransportThreads(NodeId local) {
    this.local = local;
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("tandem-transport-timer-" + local.value()));
    this.probes = pool("tandem-transport-probe-" + local.value() + "-");
    this.checks = pool("tandem-transport-check-" + local.value() + "-");
  }

  private static ExecutorService pool(String prefix) {
    AtomicInteger threads = new AtomicInteger();
    return new ThreadPoolExecutor(0, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> daemon(prefix + threads.incrementAndGet()).newThread(r));
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** On the timer thread after {@code delayMillis}; throws {@link RejectedExecutionException} once shut down. */
  void schedule(Runnable task, long delayMillis) {
    timer.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
  }

  void every(Runnable task, long periodMillis) {
    timer.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Runs a watcher event on the timer thread, after the events before it; a failing watcher is logged. */
  void onTimer(Runnable event) {
    try {
      timer.execute(() -> {
        try {
          event.run();
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "Tandem transport " + local.value() + ": a peer watcher failed", e);
        }
      });
    } catch (RejectedExecutionException e) {
      // the transport is closing: nobody is left to tell
    }
  }

  /** Throws {@link RejectedExecutionException} once shut down. */
  void probe(Runnable probe) {
    probes.execute(probe);
  }

  /** Throws {@link RejectedExecutionException} once shut down. */
  void check(Runnable check) {
    checks.execute(check);
  }

  void shutdownNow() {
    timer.shutdownNow();
    probes.shutdownNow();
    checks.shutdownNow();
  }
}
