package io.tandem.drill;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./tandem drill}: a three-node Tomcat cluster with the drop-in jar, load, a killed node, and the report. */
@Command(name = "drill", mixinStandardHelpOptions = true, description = "Runs a failover drill and prints its report.")
public final class DrillMain implements Callable<Integer> {
  @Option(names = "--scope", defaultValue = "MODIFIED_ATTRIBUTE", description = "SESSION, MODIFIED_SESSION or MODIFIED_ATTRIBUTE")
  String scope;

  @Option(names = "--mode", defaultValue = "SYNC", description = "SYNC or ASYNC")
  String mode;

  @Option(names = "--users", defaultValue = "9", description = "concurrent users")
  int users;

  @Option(names = "--writes", defaultValue = "30", description = "writes per user")
  int writes;

  @Option(names = "--home", defaultValue = "failover-tests/target", description = "the failover-tests build directory")
  Path home;

  public static void main(String[] args) {
    System.exit(new CommandLine(new DrillMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Path catalinaHome;
    try (Stream<Path> homes = Files.list(home.resolve("dist"))) {
      catalinaHome = homes.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-10.")).findFirst().orElseThrow();
    }
    Path dropin = home.resolve("dropin/tomcat-valve-dropin.jar");
    Path work = home.resolve("drill-runs/" + System.currentTimeMillis());
    System.out.println("Tandem drill: kill the owner; Tomcat " + catalinaHome.getFileName() + ", " + scope + ", " + mode
        + ", " + users + " users x " + writes + " writes");
    DrillReport report = new KillOwnerDrill(catalinaHome, dropin, work, scope, mode, users, writes, System.out).run();
    KillOwnerDrill.writeJson(home.resolve("drill-reports/kill-owner-" + scope + "-" + mode + ".json"), report);
    System.out.println(report.toHuman());
    System.out.println("Report: " + home.resolve("drill-reports/kill-owner-" + scope + "-" + mode + ".json"));
    return report.passed() || mode.equals("ASYNC") ? 0 : 1;
  }
}
