package io.tandem.benchmarks.replication;

import io.tandem.benchmarks.CommandLines;
import io.tandem.benchmarks.TandemVersion;
import io.tandem.benchmarks.capacity.CpuCap;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tandem bench --replication}: Tandem's replication hot path against a plain NIO floor, CPU per update. Bad
 * input and a missing prerequisite are one line and exit 2, before any process starts.
 */
@Command(name = "tandem bench --replication", mixinStandardHelpOptions = true, versionProvider = TandemVersion.class,
    sortOptions = false,
    description = {
        "Runs an owner and a buddy JVM on loopback, each CPU-capped, for each variant: Tandem (the real ReplicationEngine "
            + "over the real GrizzlyTransport, MODIFIED_ATTRIBUTE, SYNC), the same in ASYNC (tandem-async), and two "
            + "plain-NIO floors exchanging frames of the same sizes (one write per frame and per ack; or batched per "
            + "selector wake-up). N writer threads in the owner update their own sessions as fast as acks come back (in "
            + "ASYNC, as fast as the engine queues). Reports updates per second and CPU microseconds per update of each "
            + "process, the updates the buddy applied, and Tandem's CPU per update over each floor's.",
        "Writes results.json and summary.md under --results/<timestamp>-replication/. With the defaults a run takes "
            + "about 3 minutes."})
public final class ReplicationBenchMain implements Callable<Integer> {

  @Option(names = "--writers", description = "Writer threads in the owner, one session each (default: ${DEFAULT-VALUE}).",
      defaultValue = "16")
  int writers;

  @Option(names = "--attribute-bytes", description = "Size of the attribute each update replaces (default: ${DEFAULT-VALUE}).",
      defaultValue = "1024")
  int attributeBytes;

  @Option(names = "--warm-up", description = "Load before the cap, uncapped, so the JIT compiles first (default: ${DEFAULT-VALUE}).",
      defaultValue = "10s")
  String warmUp;

  @Option(names = "--settle", description = "Load under the cap before the window opens (default: ${DEFAULT-VALUE}).",
      defaultValue = "2s")
  String settle;

  @Option(names = "--window", description = "The measured window (default: ${DEFAULT-VALUE}).", defaultValue = "20s")
  String window;

  @Option(names = "--cpu", description = "CPU cap of each process, in cores (default: ${DEFAULT-VALUE}).", defaultValue = "0.5")
  double cpuCores;

  @Option(names = "--cfs-period", description = "CFS period of the cap, 1ms to 1s (default: ${DEFAULT-VALUE}, the kernel's).",
      defaultValue = "100ms")
  String cfsPeriod;

  @Option(names = "--variants", split = ",", paramLabel = "NAME",
      description = "Variants to run, in order (default: all). Names: tandem, tandem-async, floor-per-update, floor-batched. "
          + "The floors use the frame sizes Tandem's run measured when it runs first, computed ones otherwise.")
  List<String> variants = new ArrayList<>(List.of("tandem", "tandem-async", "floor-per-update", "floor-batched"));

  @Option(names = "--ack-timeout", description = "Tandem's ack timeout, and its transport's request timeout (default: "
      + "${DEFAULT-VALUE}, the shipped default).", defaultValue = "500ms")
  String ackTimeout;

  @Option(names = "--home", description = "benchmarks/target: the processes' logs go to <home>/replication-nodes/ "
      + "(default: ${DEFAULT-VALUE}).", defaultValue = "benchmarks/target")
  Path home;

  @Option(names = "--results", description = "Where the run's <timestamp>-replication/ directory goes (default: "
      + "${DEFAULT-VALUE}).", defaultValue = "benchmarks/results")
  Path results;

  @Option(names = "--jfr", description = "Record a JFR profile of every process (node.jfr beside its node.log).")
  boolean flightRecording;

  private static final String NAME = "tandem bench --replication";

  private String[] arguments = new String[0];

  /** Runs the command on {@code args} (with or without {@code --replication}) and returns the exit code. */
  public static int execute(String... args) {
    String[] own = Arrays.stream(args).filter(a -> !a.equals("--replication")).toArray(String[]::new);
    ReplicationBenchMain main = new ReplicationBenchMain();
    main.arguments = own;
    return CommandLines.of(main, NAME).execute(own);
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  @Override
  public Integer call() throws Exception {
    ReplicationBenchSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException e) {
      // Every bad value at once, each naming the option, the value and what is allowed; nothing has started.
      return CommandLines.refuse(NAME, e.getMessage());
    }
    Optional<String> missing = CpuCap.unavailableReason();
    if (missing.isPresent()) {
      return CommandLines.refuse(NAME, missing.get());
    }
    Path directory = new ReplicationBenchRun(settings, "./tandem bench --replication " + String.join(" ", arguments),
        System.out).run();
    System.out.println("Results: " + directory);
    return 0;
  }

  ReplicationBenchSettings settings() {
    return ReplicationBenchSettings.parse(new ReplicationBenchSettings.Raw(writers, attributeBytes, warmUp, settle, window,
        cpuCores, cfsPeriod, variants == null ? List.of() : variants, ackTimeout, home, results, flightRecording));
  }
}
