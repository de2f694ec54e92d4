package io.tandem.drill;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** What the drill ITs share: where the failover-tests build put Tomcat and the drop-in jar, and the settings. */
final class DrillRun {
  private DrillRun() {}

  static Path home() {
    return Path.of(System.getProperty("tandem.drill.home", "target"));
  }

  static DrillSettings settings(String scope, String mode, String balancer, int users, int minWrites) throws Exception {
    Path home = home();
    return new DrillSettings(DrillMain.catalinaHome(home), home.resolve("dropin/tomcat-valve-dropin.jar"),
        home.resolve("drill-runs"), scope, mode, users, minWrites, 1_000, balancer,
        new PrintStream(System.out, true, StandardCharsets.UTF_8));
  }

  /** Runs the drill, prints its report and writes its JSON under {@code target/drill-reports/}. */
  static DrillReport run(Drill drill, DrillSettings settings) throws Exception {
    DrillReport report = new DrillRunner(settings).run(drill);
    report.writeJson(home().resolve("drill-reports/" + drill.cliName() + "-" + settings.scope() + "-" + settings.mode() + "-"
        + settings.balancer() + ".json"));
    settings.progress().println(report.toHuman());
    return report;
  }
}
