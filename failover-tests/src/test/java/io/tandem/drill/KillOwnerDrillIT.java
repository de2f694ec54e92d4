package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The quick drill of the test command: three Tomcat processes, the owner SIGKILLed under load, SYNC loses nothing. */
class KillOwnerDrillIT {

  @Test
  void killTheOwner_sync_losesNoAcknowledgedWrite() throws Exception {
    Path home = Path.of(System.getProperty("tandem.drill.home", "target"));
    Path catalinaHome;
    try (Stream<Path> homes = Files.list(home.resolve("dist"))) {
      catalinaHome = homes.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-10.")).findFirst().orElseThrow();
    }
    PrintStream progress = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    DrillReport report = new KillOwnerDrill(catalinaHome, home.resolve("dropin/tomcat-valve-dropin.jar"),
        home.resolve("drill-runs/it-" + System.nanoTime()), "MODIFIED_ATTRIBUTE", "SYNC", 6, 20, progress).run();
    KillOwnerDrill.writeJson(home.resolve("drill-reports/kill-owner-it.json"), report);
    progress.println(report.toHuman());

    assertThat(report.acknowledged()).isGreaterThan(60);
    assertThat(report.lost()).isZero();
    assertThat(report.sessionsLost()).isZero();
  }

  @Test
  void parse_readsTheApplicationsListing() {
    assertThat(KillOwnerDrill.parse("{k0=a, k1=b}")).containsEntry("k0", "a").containsEntry("k1", "b");
    assertThat(KillOwnerDrill.parse("no-session")).isEmpty();
  }
}
