package io.tandem.benchmarks.replication;

import com.sun.management.OperatingSystemMXBean;
import io.tandem.core.config.ReplicationMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A node process of the replication benchmark, started by {@link ReplicationBenchRun}: {@code role=owner|buddy
 * variant=<label> port=<n> peerPort=<n> writers=<n> attributeBytes=<n> requestBytes=<n> ackBytes=<n>
 * ackTimeoutMs=<n>}. It prints {@code READY} when it can take load, then answers the commands on its standard input:
 * {@code START} (the owner's writers begin), {@code MARK} (its clock, its CPU time so far and its counts so far),
 * {@code STOP} (prints {@code STOPPED} and exits). End of input stops it too, so it never outlives the benchmark.
 *
 * <p>CPU time is the JVM's process CPU time (every thread, user + system, nanosecond resolution), read from the
 * OperatingSystemMXBean in the same instant as the count.
 */
public final class ReplicationNodeMain {
  private ReplicationNodeMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err); // only protocol lines on standard output
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      options.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    boolean owner = options.get("role").equals("owner");
    Variant variant = Variant.named(options.get("variant"));
    int port = Integer.parseInt(options.get("port"));
    int peerPort = Integer.parseInt(options.get("peerPort"));
    int writers = Integer.parseInt(options.get("writers"));
    int requestBytes = Integer.parseInt(options.get("requestBytes"));
    int ackBytes = Integer.parseInt(options.get("ackBytes"));
    BenchNode node = switch (variant) {
      case TANDEM, TANDEM_ASYNC -> new TandemNode(owner,
          variant == Variant.TANDEM ? ReplicationMode.SYNC : ReplicationMode.ASYNC, port, peerPort, writers,
          Integer.parseInt(options.get("attributeBytes")), Duration.ofMillis(Long.parseLong(options.get("ackTimeoutMs"))));
      case FLOOR_PER_UPDATE, FLOOR_BATCHED -> owner
          ? FloorNode.owner(peerPort, writers, requestBytes, ackBytes, variant.batched())
          : FloorNode.buddy(port, writers, requestBytes, ackBytes, variant.batched());
    };
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    out.println(new NodeLine("READY", node.awaitReady()).answer());
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    boolean stopped = false;
    boolean failureShown = false;
    try {
      for (String line; (line = commands.readLine()) != null; ) {
        switch (line.strip()) {
          case "START" -> {
            node.startLoad();
            out.println(NodeLine.of("STARTED").answer());
          }
          case "MARK" -> {
            // The count first: CPU spent after it is charged to the next window, never the other way round.
            long updates = node.updates();
            long requests = node.requests();
            long failed = node.failed();
            long now = System.nanoTime();
            long cpu = os.getProcessCpuTime();
            Map<String, String> fields = new LinkedHashMap<>(NodeLine.of(new Mark(now, cpu, updates)).fields());
            fields.put("failed", Long.toString(failed));
            fields.put("requests", Long.toString(requests));
            Throwable failure = node.failure();
            fields.put("failure", failure == null ? "none" : failure.getClass().getSimpleName());
            if (failure != null && !failureShown) {
              failureShown = true;
              failure.printStackTrace();
            }
            out.println(new NodeLine("MARK", fields).answer());
          }
          case "STOP" -> {
            stopped = true;
            node.stop();
            out.println(new NodeLine("STOPPED", node.summary()).answer());
            return;
          }
          default -> out.println(new NodeLine("ERROR", Map.of("unknown", line.strip().replace(' ', '_'))).answer());
        }
      }
    } finally {
      if (!stopped) {
        node.stop();
      }
      System.exit(0); // Grizzly's and the engine's threads are daemons, but a JFR recording is dumped on exit
    }
  }
}
