package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Holds each benchmark node to a fraction of a CPU, the way GlassFish's measurement capped its server.
 *
 * <p>Where the cgroup v1 {@code cpu} controller is writable, each node gets its own cgroup with a CFS quota: the
 * kernel enforces the cap, and a node that spends its quota early in a period stalls until the period ends. That
 * stall lands on every replication acknowledgement waiting on the node, which is why the period is a stated
 * parameter. Elsewhere the nodes are pinned to one CPU with {@code taskset} and a step whose node used more than
 * the cap on average is judged over the ceiling instead ({@link #enforced()} is false): a weaker, reported
 * substitute.
 *
 * <p>Implementation notes: used by the benchmark's main thread, and closed by it or by a shutdown hook, so the
 * methods that touch the group list synchronize; the cgroups it made are removed at {@link #close()}, after the
 * nodes in them have exited.
 */
public final class CpuCap implements AutoCloseable {

  private static final Path CPU_CONTROLLER = Path.of("/sys/fs/cgroup/cpu");
  // The kernel refuses quotas below 1 ms and periods outside 1 ms .. 1 s.
  private static final Duration MIN_PERIOD = Duration.ofMillis(1);
  private static final Duration MAX_PERIOD = Duration.ofSeconds(1);

  private final double cores;
  private final Duration period;
  private final Path root; // null in the taskset fallback
  private final String fallbackReason;
  private final List<Path> groups = new ArrayList<>();

  private CpuCap(double cores, Duration period, Path root, String fallbackReason) {
    this.cores = cores;
    this.period = period;
    this.root = root;
    this.fallbackReason = fallbackReason;
  }

  /**
   * A cgroup cap where the {@code cpu} controller is writable, the taskset fallback otherwise.
   *
   * @param cores the share of one CPU each node may use, e.g. 0.25
   * @param period the CFS period; the quota is {@code cores × period}
   */
  public static CpuCap create(double cores, Duration period) {
    if (!(cores > 0 && cores <= 64)) {
      throw new IllegalArgumentException("cpu cap = " + cores + " cores (must be more than 0 and at most 64)");
    }
    if (period.compareTo(MIN_PERIOD) < 0 || period.compareTo(MAX_PERIOD) > 0) {
      throw new IllegalArgumentException("CFS period = " + period.toMillis() + " ms (the kernel accepts 1 ms to 1000 ms)");
    }
    if (Math.round(cores * period.toNanos() / 1000.0) < 1000) {
      throw new IllegalArgumentException("CFS quota = " + cores + " × " + period.toMillis()
          + " ms is below the kernel's 1 ms minimum; raise the period or the cap");
    }
    Path root = CPU_CONTROLLER.resolve("tandem-bench-" + ProcessHandle.current().pid());
    try {
      if (!Files.isDirectory(CPU_CONTROLLER) || !Files.exists(CPU_CONTROLLER.resolve("cpu.cfs_quota_us"))) {
        return fallback(cores, period, "no cgroup v1 cpu controller at " + CPU_CONTROLLER);
      }
      Files.createDirectories(root);
      return new CpuCap(cores, period, root, null);
    } catch (IOException | SecurityException e) {
      return fallback(cores, period, "cannot create a cgroup under " + CPU_CONTROLLER + ": " + e.getMessage());
    }
  }

  /**
   * Why no node could be capped here at all, checked before anything starts: neither a writable cgroup v1
   * {@code cpu} controller (the kernel's cap; root) nor {@code taskset} on the PATH (the fallback). Empty when one is.
   */
  public static Optional<String> unavailableReason() {
    return unavailableReason(CPU_CONTROLLER, System.getenv("PATH"));
  }

  static Optional<String> unavailableReason(Path controller, String searchPath) {
    if (Files.isDirectory(controller) && Files.exists(controller.resolve("cpu.cfs_quota_us")) && Files.isWritable(controller)) {
      return Optional.empty();
    }
    for (String directory : (searchPath == null ? "" : searchPath).split(java.io.File.pathSeparator)) {
      if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, "taskset"))) {
        return Optional.empty();
      }
    }
    return Optional.of("the nodes cannot be CPU-capped: no writable cgroup v1 cpu controller at " + controller
        + " (run as root for the kernel's cap) and no taskset on the PATH for the fallback (Debian: apt-get install util-linux)");
  }

  /** The taskset fallback, used where no cgroup can be made; {@code reason} says why in every report. */
  static CpuCap fallback(double cores, Duration period, String reason) {
    return new CpuCap(cores, period, null, reason);
  }

  /** Whether the kernel enforces the cap (cgroup) rather than the step criterion (taskset fallback). */
  public boolean enforced() {
    return root != null;
  }

  public double cores() {
    return cores;
  }

  public Duration period() {
    return period;
  }

  /** One line for the progress output and the report: how the nodes are capped. */
  public String describe() {
    if (enforced()) {
      return String.format(Locale.ROOT, "cgroup v1 cpu quota %.2f core per node (quota %d µs per CFS period %d µs)",
          cores, quotaMicros(), period.toNanos() / 1000);
    }
    return String.format(Locale.ROOT, "FALLBACK (%s): nodes pinned to CPU %d with taskset; a step where a node "
        + "averaged more than %.2f core counts as over the CPU ceiling", fallbackReason, fallbackCpu(), cores);
  }

  /** Puts the running process {@code pid} (every thread of it) under the cap, in a group named after the node. */
  public synchronized void apply(String node, long pid) throws IOException, InterruptedException {
    if (enforced()) {
      Path group = Files.createDirectories(root.resolve(node));
      groups.add(group);
      write(group.resolve("cpu.cfs_period_us"), period.toNanos() / 1000);
      write(group.resolve("cpu.cfs_quota_us"), quotaMicros());
      write(group.resolve("cgroup.procs"), pid);
    } else {
      Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", Integer.toString(fallbackCpu()),
          Long.toString(pid)).redirectErrorStream(true).start();
      String output = new String(taskset.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!taskset.waitFor(10, TimeUnit.SECONDS) || taskset.exitValue() != 0) {
        throw new IOException("taskset could not pin node " + node + " (pid " + pid + "): " + output);
      }
    }
  }

  /** Periods in which the node's group ran out of quota so far, or -1 without a cgroup. */
  public long throttledPeriods(String node) {
    if (!enforced()) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(root.resolve(node).resolve("cpu.stat"))) {
        if (line.startsWith("nr_throttled ")) {
          return Long.parseLong(line.substring("nr_throttled ".length()).trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      // reported as unknown
    }
    return -1;
  }

  /** Whether a node that used {@code nodeCores} on average broke the cap: only possible in the fallback. */
  public boolean overCeiling(double nodeCores) {
    // 5 % of slack for the sampling: /proc's CPU times tick at 10 ms.
    return !enforced() && nodeCores > cores * 1.05;
  }

  private long quotaMicros() {
    return Math.round(cores * period.toNanos() / 1000.0);
  }

  private static int fallbackCpu() {
    // The driver's loop runs wherever the scheduler puts it; the nodes share the last CPU.
    return Math.max(0, Runtime.getRuntime().availableProcessors() - 1);
  }

  private static void write(Path file, long value) throws IOException {
    Files.writeString(file, Long.toString(value), StandardCharsets.US_ASCII);
  }

  /** Removes the groups; the nodes in them must have exited (the kernel refuses to remove a group with tasks). */
  @Override
  public synchronized void close() {
    if (!enforced()) {
      return;
    }
    for (Path group : groups) {
      removeGroup(group);
    }
    removeGroup(root);
  }

  private static void removeGroup(Path group) {
    // A cgroup directory is removed with rmdir even though it lists files; the files are the kernel's.
    for (int attempt = 0; attempt < 50 && Files.exists(group); attempt++) {
      try {
        Files.delete(group);
      } catch (IOException e) {
        try {
          Thread.sleep(100); // the last task may still be exiting
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
