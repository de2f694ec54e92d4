package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./tandem drill}: by default a three-node Tomcat cluster with the drop-in jar, load, the owner SIGKILLed, the
 * report. Options pick other drills, every scope and mode, and a real HAProxy or Apache httpd. Exits 1 when a SYNC drill lost an
 * acknowledged write or broke an invariant, 2 on a usage error. Each run's nodes work in {@code drill-runs/<start
 * time>/} and its reports are named after the same time; the oldest run folders are pruned ({@code --keep-runs}).
 */
@Command(name = "drill", mixinStandardHelpOptions = true, versionProvider = TandemVersion.class, sortOptions = false,
    description = "Runs failover drills on real Tomcat processes and prints their reports.")
public final class DrillMain implements Callable<Integer> {
  private static final int MIN_WRITES = 6; // the users' warm-up: DrillSettings' minimum
  private static final int MAX_WRITES = 5_000;
  private static final String DROPIN = "dropin/tomcat-valve-dropin.jar";

  @Option(names = "--drill", split = ",",
      description = "kill-owner, kill-buddy, two-failures, hang-owner, rolling-restart, form-login, parallel-requests, partition, "
          + "poison-values, writers-storm, hang-patient, logout-sticks, rogue-member, big-pages, full-buddy, rolling-upgrade, two-apps, app-redeploy, "
          + "'quick' (each once, the test command's set) or 'all' (default: kill-owner; with --full, every drill, or those"
          + " named: a part of the full matrix)")
  List<String> named;

  /** The drills named, or the default: kill-owner, and every drill with --full. */
  private List<String> drillNames() {
    return named != null ? named : full ? List.of("all") : List.of("kill-owner");
  }

  @Option(names = "--scope", split = ",", defaultValue = "MODIFIED_ATTRIBUTE",
      description = "SESSION, MODIFIED_SESSION, MODIFIED_ATTRIBUTE or 'all' (default: ${DEFAULT-VALUE})")
  List<String> scopes;

  @Option(names = "--mode", split = ",", defaultValue = "SYNC", description = "SYNC, ASYNC or 'all' (default: ${DEFAULT-VALUE})")
  List<String> modes;

  @Option(names = "--balancer", split = ",", defaultValue = "sticky",
      description = "sticky (the drill's own sticky client), haproxy (a real HAProxy; must be installed), httpd (a real "
          + "Apache httpd: Debian's apache2; must be installed) or 'all' (default: ${DEFAULT-VALUE})")
  List<String> balancers;

  @Option(names = "--nodes", split = ",", description = "cluster sizes to run each drill on: 3, or 2 for kill-owner, "
      + "kill-buddy and two-apps (the survivor's buddy is then always the node that died); e.g. 2,3 (default: each drill's own, 3 but "
      + "rogue-member's 2)")
  List<Integer> nodes;

  @Option(names = "--full", description = "every drill (or those --drill names) x every scope x SYNC and ASYNC (poison-values, writers-storm, "
      + "hang-patient, rogue-member, big-pages, full-buddy, rolling-upgrade and app-redeploy in SYNC only), through HAProxy and Apache httpd too where they are installed")
  boolean full;

  @Option(names = "--users", defaultValue = "9", description = "concurrent users; writers-storm always runs 50, logout-sticks 40 (default: ${DEFAULT-VALUE})")
  int users;

  @Option(names = "--writes", defaultValue = "30", description = "writes per user at least; users go on until the faults are over (default: ${DEFAULT-VALUE})")
  int writes;

  @Option(names = "--max-writes", defaultValue = "2000", description = "writes per user at most (default: ${DEFAULT-VALUE})")
  int maxWrites;

  @Option(names = "--keep-runs", defaultValue = "5", description = "run folders (the nodes' files and logs, about 70 MB "
      + "a drill) kept under <home>/drill-runs, this run's among them; older ones are removed (default: ${DEFAULT-VALUE})")
  int keepRuns;

  /** Proof that rogue-member can fail: its third node gets the right secret, joins, and the drill must report it. */
  @Option(names = "--rogue-knows-the-secret", hidden = true,
      description = "test only: rogue-member's third node gets the cluster's own sharedSecret; the drill must then FAIL")
  boolean rogueKnowsTheSecret;

  @Option(names = "--home", defaultValue = "failover-tests/target", description = "the failover-tests build directory (default: ${DEFAULT-VALUE})")
  Path home;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line: a value picocli cannot take (an unknown option, a number that is not one) is one line too. */
  static CommandLine commandLine() {
    return new CommandLine(new DrillMain()).setParameterExceptionHandler((e, args) -> {
      String message = String.valueOf(e.getMessage()).replaceAll("\\s*\\R\\s*", " ").trim();
      System.err.println("tandem drill: " + message
          + (e instanceof CommandLine.UnmatchedArgumentException ? " (the options: tandem drill --help)" : ""));
      return CommandLine.ExitCode.USAGE;
    });
  }

  @Override
  public Integer call() throws Exception {
    java.util.Optional<String> wrong = usageError().or(this::missingPrerequisite);
    if (wrong.isPresent()) {
      // One line naming the option, the value and what is allowed; nothing has started yet.
      System.err.println("tandem drill: " + wrong.get());
      return 2;
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Path runs = home.resolve("drill-runs");
    Path run = RunFolders.create(runs, Instant.now());
    String runName = run.getFileName().toString();
    out.println("Run " + runName + ": nodes in " + run);
    String pruned = RunFolders.prune(runs, keepRuns, run).describe(runs, keepRuns);
    if (!pruned.isEmpty()) {
      out.println(pruned);
    }
    DrillSettings base = new DrillSettings(catalinaHome(home), home.resolve(DROPIN),
        run, "MODIFIED_ATTRIBUTE", "SYNC", users, writes, maxWrites, "sticky", out);
    List<DrillReport> reports = new ArrayList<>();
    for (Drill drill : drills()) {
      if (drill.needsNamespaces()) {
        var unavailable = NetworkNamespaces.unavailableReason();
        if (unavailable.isPresent()) {
          out.println("== Drill " + drill.cliName() + " SKIPPED: " + unavailable.get());
          continue;
        }
      }
      for (String balancer : balancers()) {
        if (!balancer.equals("sticky") && !drill.runsThroughExternalBalancers()) {
          out.println("== Drill " + drill.cliName() + " through " + balancer + " SKIPPED: " + drill.whyStickyOnly());
          continue;
        }
        for (String scope : expand(scopes, List.of("SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"))) {
          for (String mode : full ? drill.fullModes() : expand(modes, List.of("SYNC", "ASYNC"))) {
            for (int size : nodes == null ? List.of(drill.clusterSize()) : nodes) {
            DrillReport report = new DrillRunner(base.with(scope, mode, balancer), rogueKnowsTheSecret).run(drill, size);
            String sized = size == drill.clusterSize() ? "" : "-" + size + "nodes";
            Path json = home.resolve("drill-reports/" + runName + "-" + drill.cliName() + sized + "-" + scope + "-" + mode + "-"
                + balancer + ".json");
            report.writeJson(json);
            out.println(report.toHuman());
            out.println("  report: " + json);
            reports.add(report);
            }
          }
        }
      }
    }
    long failed = reports.stream().filter(r -> !r.passed()).count();
    out.println();
    out.println(reports.size() + " drill runs, " + failed + " failed; reports in " + home.resolve("drill-reports") + " ("
        + runName + "-*.json), nodes' files and logs in " + run);
    return failed == 0 ? 0 : 1;
  }

  /** The first bad option value, or a missing prerequisite of an option chosen explicitly; empty when all is well. */
  java.util.Optional<String> usageError() {
    List<String> drillNames = new ArrayList<>(Stream.of(Drill.values()).map(Drill::cliName).toList());
    drillNames.addAll(List.of("quick", "all"));
    for (String name : drillNames()) {
      if (!drillNames.contains(name)) {
        return java.util.Optional.of("--drill " + name + ": no such drill; one or more of " + String.join(", ", drillNames));
      }
    }
    java.util.Optional<String> wrong = oneOf("--scope", scopes, List.of("SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE", "all"))
        .or(() -> oneOf("--mode", modes, List.of("SYNC", "ASYNC", "all")))
        .or(() -> oneOf("--balancer", balancers, List.of("sticky", "haproxy", "httpd", "all")));
    if (wrong.isPresent()) {
      return wrong;
    }
    if (users < 1 || users > TomcatProcess.LOGIN_USERS) {
      // The nodes' realm has that many users for the FORM drill; every drill's settings hold to it.
      return java.util.Optional.of("--users " + users + ": must be between 1 and " + TomcatProcess.LOGIN_USERS);
    }
    if (writes < MIN_WRITES || writes > MAX_WRITES) {
      return java.util.Optional.of("--writes " + writes + ": must be between " + MIN_WRITES + " and " + MAX_WRITES);
    }
    if (maxWrites < writes || maxWrites > MAX_WRITES) {
      return java.util.Optional.of("--max-writes " + maxWrites + ": must be between --writes (" + writes + ") and " + MAX_WRITES);
    }
    if (nodes != null) {
      for (int size : nodes) {
        java.util.Optional<Drill> cannot = drills().stream().filter(d -> !d.runsOn(size)).findFirst();
        if (size != 2 && size != 3) {
          return java.util.Optional.of("--nodes " + size + ": must be 2 or 3");
        }
        if (cannot.isPresent()) {
          return java.util.Optional.of("--nodes " + size + ": " + cannot.get().cliName() + " does not run on " + size
              + " nodes; only kill-owner, kill-buddy and two-apps also run on 2");
        }
      }
    }
    if (keepRuns < 1) {
      return java.util.Optional.of("--keep-runs " + keepRuns + ": must be at least 1 (this run's folder)");
    }
    if (balancers.contains("haproxy") && HaproxyBalancer.installedVersion().isEmpty()) {
      return java.util.Optional.of("--balancer haproxy: haproxy is not installed (Debian: apt-get install haproxy)");
    }
    if (balancers.contains("httpd") && HttpdBalancer.installedVersion().isEmpty()) {
      return java.util.Optional.of("--balancer httpd: apache2 is not installed (Debian: apt-get install apache2)");
    }
    // Named on its own, a drill that cannot run here is refused; in 'quick', 'all' and --full it is skipped, saying why.
    java.util.Optional<Drill> namespaced = drillNames().stream().filter(n -> !n.equals("quick") && !n.equals("all"))
        .map(Drill::fromCliName).filter(Drill::needsNamespaces).findFirst();
    if (!full && namespaced.isPresent()) {
      java.util.Optional<String> unavailable = NetworkNamespaces.unavailableReason();
      if (unavailable.isPresent()) {
        return java.util.Optional.of("--drill " + namespaced.get().cliName() + ": " + unavailable.get());
      }
    }
    return java.util.Optional.empty();
  }

  /** What the drills run, missing from --home (the failover-tests build); empty when it is there. */
  java.util.Optional<String> missingPrerequisite() {
    try {
      catalinaHome(home);
    } catch (IOException | IllegalStateException e) {
      return java.util.Optional.of("--home " + home + ": " + e.getMessage());
    }
    Path dropin = home.resolve(DROPIN);
    if (!Files.isRegularFile(dropin)) {
      return java.util.Optional.of("--home " + home + ": the drop-in jar " + dropin + " is missing; build it with ./mvnw install "
          + "-DskipTests -pl failover-tests -am");
    }
    return java.util.Optional.empty();
  }

  private static java.util.Optional<String> oneOf(String option, List<String> values, List<String> allowed) {
    return values.stream().filter(v -> !allowed.contains(v)).findFirst()
        .map(v -> option + " " + v + ": not one of " + String.join(", ", allowed));
  }

  /** The drills this run runs, in order. */
  List<Drill> drills() {
    List<String> drills = drillNames();
    if (drills.contains("all")) {
      return List.of(Drill.values());
    }
    if (drills.contains("quick")) {
      return Drill.quickSet();
    }
    return drills.stream().map(Drill::fromCliName).toList();
  }

  private List<String> balancers() {
    if (full || balancers.contains("all")) {
      List<String> installed = new ArrayList<>(List.of("sticky"));
      if (HaproxyBalancer.installedVersion().isPresent()) {
        installed.add("haproxy");
      } else {
        System.out.println("haproxy is not installed: the drills do not run through HAProxy");
      }
      if (HttpdBalancer.installedVersion().isPresent()) {
        installed.add("httpd");
      } else {
        System.out.println("apache2 is not installed: the drills do not run through Apache httpd");
      }
      return installed;
    }
    return balancers;
  }

  private List<String> expand(List<String> chosen, List<String> all) {
    return full || chosen.contains("all") ? all : chosen;
  }

  static Path catalinaHome(Path home) throws IOException {
    Path dist = home.resolve("dist");
    try (Stream<Path> homes = Files.isDirectory(dist) ? Files.list(dist) : Stream.empty()) {
      return homes.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-10.")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no Tomcat 10.1 distribution unpacked in " + dist + "; run ./mvnw install -pl failover-tests -am"));
    }
  }
}
