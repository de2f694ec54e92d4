package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

/**
 * What the drill ITs share: where the failover-tests build put Tomcat and the drop-in jar, the settings, and one run
 * folder per test JVM under {@code target/drill-runs/}, pruned as {@code ./tandem drill} prunes its own.
 */
final class DrillRun {
  private static final int KEEP_RUNS = 5;
  private static Path runFolder; // created by the first drill of this JVM

  private DrillRun() {}

  static Path home() {
    return Path.of(System.getProperty("tandem.drill.home", "target"));
  }

  /** This JVM's run folder, created (and the oldest pruned) on first use. */
  static synchronized Path runFolder() throws IOException {
    if (runFolder == null) {
      Path runs = home().resolve("drill-runs");
      runFolder = RunFolders.create(runs, Instant.now());
      String pruned = RunFolders.prune(runs, KEEP_RUNS, runFolder).describe(runs, KEEP_RUNS);
      if (!pruned.isEmpty()) {
        System.out.println(pruned);
      }
    }
    return runFolder;
  }

  static DrillSettings settings(String scope, String mode, String balancer, int users, int minWrites) throws Exception {
    Path home = home();
    return new DrillSettings(DrillMain.catalinaHome(home), home.resolve("dropin/tomcat-valve-dropin.jar"),
        runFolder(), scope, mode, users, minWrites, 1_000, balancer,
        new PrintStream(System.out, true, StandardCharsets.UTF_8));
  }

  /** Runs the drill, prints its report and writes its JSON under {@code target/drill-reports/}, named after the run. */
  static DrillReport run(Drill drill, DrillSettings settings) throws Exception {
    DrillReport report = new DrillRunner(settings).run(drill);
    report.writeJson(home().resolve("drill-reports/" + runFolder().getFileName() + "-" + drill.cliName() + "-" + settings.scope()
        + "-" + settings.mode() + "-" + settings.balancer() + ".json"));
    settings.progress().println(report.toHuman());
    return report;
  }
}
