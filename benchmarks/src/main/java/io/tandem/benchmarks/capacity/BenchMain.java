package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.CommandLines;
import io.tandem.benchmarks.TandemVersion;
import io.tandem.benchmarks.load.LoadProfile;
import io.tandem.benchmarks.replication.ReplicationBenchMain;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tandem bench}: users within the p90 budget at a CPU cap, per setup, with ratios to the control. Bad input
 * and a missing prerequisite are one line and exit 2, before any node starts.
 */
@Command(name = "tandem bench", mixinStandardHelpOptions = true, versionProvider = TandemVersion.class, sortOptions = false,
    description = {
        "Measures, for each setup, U*: the most users two CPU-capped Tomcat nodes serve with the 90th-percentile response "
            + "time within the budget and no errors (the growing-session workload); the peak requests per second of a "
            + "one-attribute page with closed-loop clients; and each setup's overhead at a fixed load. Writes "
            + "results.json, summary.md and PNG charts under --results/<timestamp>/.",
        "The full run (2 repetitions of 10 setups, 30 s windows) takes about 3 h 20 min; with --repeats 1 --window-s 15 "
            + "--warm-up-s 5 about 65 minutes (58 with the 9 setups before tomcat-delta-sync); --quick takes about 5 "
            + "minutes.",
        "With --replication: the Tomcat-free replication benchmark instead, Tandem's hot path against a plain NIO "
            + "floor (./tandem bench --replication --help).",
        "With --frames RECORDING: whose Java code a node ran, from the node.jfr of a --jfr run (./tandem bench --frames "
            + "--help)."})
public final class BenchMain implements Callable<Integer> {

  @Option(names = "--quick", description = "Smoke run: no replication, Tandem MODIFIED_ATTRIBUTE SYNC and Tomcat "
      + "BackupManager; short steps, one repetition. Checks the harness, not the figures.")
  boolean quick;

  @Option(names = "--setups", split = ",", paramLabel = "NAME",
      description = "Setups to run, in order (default: all but ack-wait-floor, which runs only when named: no "
          + "replication, only a SYNC request's wait for its acknowledgement, released at once by another thread). "
          + "Names: ${COMPLETION-CANDIDATES}",
      completionCandidates = SetupNames.class)
  List<String> setups;

  @Option(names = "--repeats", description = "Repetitions of every setup, interleaved (default: 2; quick: 1).")
  Integer repeats;

  @Option(names = "--cpu", description = "CPU cap of each node, in cores (default: ${DEFAULT-VALUE}).", defaultValue = "0.25")
  double cpuCores;

  @Option(names = "--cfs-period-ms", description = "CFS period of the cap, 1 to 1000 ms (default: ${DEFAULT-VALUE}, the kernel's).",
      defaultValue = "100")
  long cfsPeriodMillis;

  @Option(names = "--budget-ms", description = "p90 budget (default: ${DEFAULT-VALUE}).", defaultValue = "800")
  long budgetMillis;

  @Option(names = "--pages", description = "Pages per session, K (default: ${DEFAULT-VALUE}).", defaultValue = "20")
  int pages;

  @Option(names = "--attribute-bytes", description = "Bytes of the attribute each page adds, S (default: ${DEFAULT-VALUE}).",
      defaultValue = "1024")
  int attributeBytes;

  @Option(names = "--think-ms", description = "Mean think time; ±10 %% (default: ${DEFAULT-VALUE}).", defaultValue = "1000")
  long thinkMillis;

  @Option(names = "--warm-up-s", description = "Unrecorded start of each step (default: 10; quick: 3).")
  Integer warmUpSeconds;

  @Option(names = "--window-s", description = "Measured window of each step (default: 30; quick: 8).")
  Integer windowSeconds;

  @Option(names = "--start-users", description = "First step of the U* search (default: 400; quick: 100).")
  Integer startUsers;

  @Option(names = "--max-users", description = "Largest step of the U* search (default: ${DEFAULT-VALUE}).", defaultValue = "12000")
  int maxUsers;

  @Option(names = "--max-steps", description = "Steps of one U* search, coarse and fine (default: 10; quick: 3).")
  Integer maxSteps;

  @Option(names = "--overhead-users", description = "The fixed load of the overhead step, within every setup's U*; "
      + "its server CPU per request gives the replication CPU column (default: 1500; quick: 400).")
  Integer overheadUsers;

  @Option(names = "--peak-clients", description = "Closed-loop clients of the peak step (default: ${DEFAULT-VALUE}).",
      defaultValue = "16")
  int peakClients;

  @Option(names = "--home", description = "benchmarks/target: the Tomcat distribution and drop-in jar (default: ${DEFAULT-VALUE}).",
      defaultValue = "benchmarks/target")
  Path home;

  @Option(names = "--results", description = "Where the run's <timestamp>/ directory goes (default: ${DEFAULT-VALUE}).",
      defaultValue = "benchmarks/results")
  Path results;

  @Option(names = "--jfr", description = "Record a JFR profile of every node (node.jfr beside its logs), to see where "
      + "the time goes.")
  boolean flightRecording;

  private static final String NAME = "tandem bench";
  private static final long MAX_MILLIS = Duration.ofHours(24).toMillis();
  private static final long MAX_SECONDS = Duration.ofHours(24).toSeconds();

  // Held so the level sticks: the driver logs every step at INFO, which the progress lines already say.
  private static final java.util.logging.Logger DRIVER_LOG = java.util.logging.Logger.getLogger("io.tandem.benchmarks.load");

  private String[] arguments = new String[0];

  public static void main(String[] args) {
    if (java.util.Arrays.asList(args).contains("--replication")) {
      System.exit(ReplicationBenchMain.execute(args));
    }
    if (java.util.Arrays.asList(args).contains("--frames")) {
      System.exit(FramesMain.execute(args));
    }
    DRIVER_LOG.setLevel(java.util.logging.Level.WARNING);
    System.exit(execute(args));
  }

  /** Runs the command on {@code args} and returns the exit code: 2 for bad input, before anything starts. */
  static int execute(String... args) {
    BenchMain main = new BenchMain();
    main.arguments = args.clone();
    return CommandLines.of(main, NAME).execute(args);
  }

  @Override
  public Integer call() throws Exception {
    Optional<String> wrong = usageError().or(this::missingPrerequisite);
    if (wrong.isPresent()) {
      return CommandLines.refuse(NAME, wrong.get());
    }
    BenchSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException e) {
      // The settings' own checks, behind usageError(): still one line, and still before any node starts.
      return CommandLines.refuse(NAME, e.getMessage());
    }
    Path directory = new BenchRun(settings, "./tandem bench " + String.join(" ", arguments), System.out).run();
    System.out.println("Results: " + directory);
    return 0;
  }

  /** The first bad option value, naming the option, the value and what is allowed; empty when all are good. */
  Optional<String> usageError() {
    List<String> names = Setup.known().stream().map(Setup::name).toList();
    if (setups != null) {
      for (String name : setups) {
        if (!names.contains(name.trim())) {
          return Optional.of("--setups " + name + ": no such setup; one or more of " + String.join(", ", names));
        }
      }
      if (setups.stream().map(String::trim).distinct().count() != setups.size()) {
        return Optional.of("--setups " + String.join(",", setups) + ": each setup at most once");
      }
    }
    if (!(cpuCores > 0 && cpuCores <= 64)) {
      return Optional.of("--cpu " + CommandLines.plain(cpuCores) + ": cores per node, more than 0 and at most 64");
    }
    Optional<String> wrong = between("--repeats", repeats, 1, 100)
        .or(() -> between("--cfs-period-ms", cfsPeriodMillis, 1, 1000))
        .or(() -> between("--budget-ms", budgetMillis, 1, MAX_MILLIS))
        .or(() -> between("--pages", pages, 1, LoadProfile.MAX_PAGES_PER_SESSION))
        .or(() -> between("--attribute-bytes", attributeBytes, 0, LoadProfile.MAX_ATTRIBUTE_BYTES))
        .or(() -> between("--think-ms", thinkMillis, 0, MAX_MILLIS))
        .or(() -> between("--warm-up-s", warmUpSeconds, 0, MAX_SECONDS))
        .or(() -> between("--window-s", windowSeconds, 1, MAX_SECONDS))
        .or(() -> between("--max-users", maxUsers, 1, LoadProfile.MAX_USERS))
        .or(() -> between("--max-steps", maxSteps, 1, 1000))
        .or(() -> between("--overhead-users", overheadUsers, 1, LoadProfile.MAX_USERS))
        .or(() -> between("--peak-clients", peakClients, 1, LoadProfile.MAX_USERS));
    if (wrong.isPresent()) {
      return wrong;
    }
    if (cpuCores * cfsPeriodMillis < 1) {
      return Optional.of("--cpu " + CommandLines.plain(cpuCores) + " with --cfs-period-ms " + cfsPeriodMillis + ": a CFS quota of "
          + CommandLines.plain(cpuCores * cfsPeriodMillis) + " ms, below the kernel's 1 ms minimum; raise either");
    }
    if (startUsers != null && (startUsers < 1 || startUsers > maxUsers)) {
      return Optional.of("--start-users " + startUsers + ": must be between 1 and --max-users (" + maxUsers + ")");
    }
    int firstStep = startUsers != null ? startUsers : quick ? 100 : 400;
    if (maxUsers < firstStep) {
      return Optional.of("--max-users " + maxUsers + ": must be at least the first step, --start-users (" + firstStep + ")");
    }
    return Optional.empty();
  }

  /**
   * What must be in place before any node starts: the build's Tomcat distribution and drop-in jar under --home, and
   * a way to cap the nodes' CPU (the cgroup, or taskset for the reported fallback: {@link CpuCap}).
   */
  private Optional<String> missingPrerequisite() {
    try {
      BenchHome.in(home);
    } catch (IllegalArgumentException | IOException e) {
      return Optional.of("--home " + home + ": " + e.getMessage());
    }
    return CpuCap.unavailableReason();
  }

  /** {@code option value: must be between min and max}, or empty; a null value was not given and is fine. */
  private static Optional<String> between(String option, Number value, long min, long max) {
    if (value == null || value.longValue() >= min && value.longValue() <= max) {
      return Optional.empty();
    }
    return Optional.of(option + " " + value + ": must be between " + min + " and " + max);
  }

  BenchSettings settings() {
    List<Setup> chosen = new ArrayList<>();
    if (setups != null) {
      setups.forEach(name -> chosen.add(Setup.named(name.trim())));
    } else if (quick) {
      chosen.addAll(List.of(Setup.CONTROL, Setup.tandem("MODIFIED_ATTRIBUTE", "SYNC"), Setup.BACKUP_MANAGER));
    } else {
      chosen.addAll(Setup.all());
    }
    Duration warmUp = Duration.ofSeconds(warmUpSeconds != null ? warmUpSeconds : quick ? 3 : 10);
    Duration window = Duration.ofSeconds(windowSeconds != null ? windowSeconds : quick ? 8 : 30);
    int firstStep = startUsers != null ? startUsers : quick ? 100 : 400;
    LoadProfile profile = LoadProfile.of(firstStep).withPagesPerSession(pages).withAttributeBytes(attributeBytes)
        .withThinkTime(Duration.ofMillis(thinkMillis), LoadProfile.DEFAULT_THINK_JITTER)
        .withTiming(warmUp, window, LoadProfile.DEFAULT_REQUEST_TIMEOUT);
    UserSearch search = new UserSearch(firstStep, maxUsers, 2.0, 0.05, 5, maxSteps != null ? maxSteps : quick ? 3 : 10);
    return new BenchSettings(chosen, repeats != null ? repeats : quick ? 1 : 2, profile,
        Duration.ofSeconds(quick ? 15 : 60), Duration.ofMillis(budgetMillis), cpuCores, Duration.ofMillis(cfsPeriodMillis),
        search, overheadUsers != null ? overheadUsers : quick ? 400 : 1500, peakClients, home, results, flightRecording);
  }

  /** The setup names, for the help text. */
  static final class SetupNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    SetupNames() {
      super(Setup.known().stream().map(Setup::name).toList());
    }
  }
}
