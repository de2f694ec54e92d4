package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.load.LoadDriver;
import io.tandem.benchmarks.load.LoadProfile;
import io.tandem.benchmarks.load.StepResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs load steps on one started pair and judges them. The nodes' counters are read when the driver's measured window
 * opens and when it closes, so the warm-up's CPU and replication do not count.
 *
 * <p>Implementation notes: one step at a time, from the benchmark's main thread; the snapshots (counters, threads
 * from {@code /proc}, thread dumps) are taken on a scheduler thread of its own and handed over through its futures.
 */
final class StepRunner {

  private final NodePair pair;
  private final CpuCap cap;
  private final String groupPrefix;
  private final LoadDriver driver;
  private final Duration budget;
  private final int repeat;

  StepRunner(NodePair pair, CpuCap cap, String groupPrefix, LoadDriver driver, Duration budget, int repeat) {
    this.pair = pair;
    this.cap = cap;
    this.groupPrefix = groupPrefix;
    this.driver = driver;
    this.budget = budget;
    this.repeat = repeat;
  }

  /**
   * Runs {@code profile} against {@code page} of both nodes and judges it. A judged step starts on nodes without
   * sessions ({@link NodePair#endAllSessions()}); the warm-up does not need to.
   */
  StepRecord run(String phase, LoadProfile profile, String page) throws Exception {
    return run(phase, profile, page, false);
  }

  /**
   * {@link #run(String, LoadProfile, String)}, and where the nodes' CPU went, by thread group ({@link ThreadCpu}): each
   * node's threads are read from {@code /proc} with its other counters, and after the window closes a thread dump
   * names them.
   */
  StepRecord runCountingThreads(String phase, LoadProfile profile, String page) throws Exception {
    return run(phase, profile, page, true);
  }

  private StepRecord run(String phase, LoadProfile profile, String page, boolean threads) throws Exception {
    if (!phase.equals("warm-up")) {
      String ended = pair.endAllSessions();
      if (ended.contains("still active")) {
        System.getLogger(StepRunner.class.getName()).log(System.Logger.Level.WARNING, "Before a " + phase + " step: " + ended);
      }
    }
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "tandem-bench-snapshot");
      thread.setDaemon(true);
      return thread;
    });
    try {
      long windowOpens = profile.warmUp().toNanos();
      long windowCloses = windowOpens + profile.window().toNanos();
      ScheduledFuture<Snapshot> before = clock.schedule(() -> snapshot(threads, false), windowOpens, TimeUnit.NANOSECONDS);
      ScheduledFuture<Snapshot> after = clock.schedule(() -> snapshot(threads, threads), windowCloses, TimeUnit.NANOSECONDS);
      StepResult result = driver.run(profile, pair.targets(page));
      Snapshot opened = get(before);
      Snapshot closed = get(after);
      List<NodeSnapshot> deltas = new ArrayList<>();
      for (int i = 0; i < pair.nodes.size(); i++) {
        deltas.add(closed.nodes.get(i).since(opened.nodes.get(i)));
      }
      StepRecord step = StepRecord.judge(pair.setup.name(), repeat, phase, result, deltas, pair.setup.replicates(),
          budget, cap, pair.setup.tomcatCluster());
      return threads
          ? step.withThreadCpu(ThreadCpu.of(opened.threads, closed.threads, closed.names, result.successes()))
          : step;
    } finally {
      clock.shutdownNow();
    }
  }

  /**
   * Both nodes' counters at one instant, in node order.
   *
   * @param threads each node's threads; empty unless asked for
   * @param names each node's thread names by tid; empty unless asked for
   */
  private record Snapshot(List<NodeSnapshot> nodes, List<Map<Integer, ThreadSample>> threads,
      List<Map<Integer, String>> names) {}

  private Snapshot snapshot(boolean threads, boolean names) throws Exception {
    List<NodeSnapshot> snapshots = new ArrayList<>();
    List<Map<Integer, ThreadSample>> samples = new ArrayList<>();
    for (BenchNode node : pair.nodes) {
      if (threads) {
        samples.add(ProcThreads.of(node.pid()));
      }
      snapshots.add(NodeSnapshot.of(node, cap, groupPrefix + "-" + node.name));
    }
    // The dumps come last: they stop each node briefly, which must not land inside the window they close.
    List<Map<Integer, String>> dumps = new ArrayList<>();
    if (names) {
      pair.nodes.forEach(node -> dumps.add(ThreadNames.of(node.pid())));
    }
    return new Snapshot(snapshots, samples, dumps);
  }

  private static Snapshot get(ScheduledFuture<Snapshot> snapshot) throws Exception {
    try {
      return snapshot.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not read the nodes' counters: " + e.getCause(), e.getCause());
    }
  }
}
