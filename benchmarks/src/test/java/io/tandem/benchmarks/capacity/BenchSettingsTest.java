package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchSettingsTest {

  private static BenchSettings parse(String... args) {
    BenchMain main = new BenchMain();
    new CommandLine(main).parseArgs(args);
    return main.settings();
  }

  @Test
  void repetitionsRotateTheOrderSoDriftHitsEverySetupAlike() {
    BenchSettings settings = parse("--setups", "no-replication,tandem-session-sync,tomcat-backup", "--repeats", "3");

    assertThat(settings.order(1)).extracting(Setup::name)
        .containsExactly("no-replication", "tandem-session-sync", "tomcat-backup");
    assertThat(settings.order(2)).extracting(Setup::name)
        .containsExactly("tandem-session-sync", "tomcat-backup", "no-replication");
    assertThat(settings.order(3)).extracting(Setup::name)
        .containsExactly("tomcat-backup", "no-replication", "tandem-session-sync");
  }

  @Test
  void theFullRunComparesEverySetupTwiceAndTheQuickRunThreeOnce() {
    BenchSettings full = parse();
    assertThat(full.setups()).hasSize(10);
    assertThat(full.setups()).extracting(Setup::name).endsWith("tomcat-backup", "tomcat-delta", "tomcat-delta-sync");
    assertThat(full.repeats()).isEqualTo(2);
    assertThat(full.profile().window().toSeconds()).isEqualTo(30);

    BenchSettings quick = parse("--quick");
    assertThat(quick.setups()).extracting(Setup::name)
        .containsExactly("no-replication", "tandem-modified-attribute-sync", "tomcat-backup");
    assertThat(quick.repeats()).isEqualTo(1);
  }

  @Test
  void refusesSettingsThatCannotRunNamingEachProblem() {
    assertThatThrownBy(() -> parse("--setups", "no-replication,no-replication"))
        .hasMessageContaining("each at most once");
    assertThatThrownBy(() -> new BenchSettings(List.of(), 0, parse().profile(), java.time.Duration.ZERO,
        java.time.Duration.ZERO, 0.25, java.time.Duration.ofMillis(100), parse().search(), 0, 0, Path.of("t"),
        Path.of("r"), false))
        .hasMessageContaining("setups: at least one").hasMessageContaining("repeats = 0")
        .hasMessageContaining("budget").hasMessageContaining("overhead users = 0")
        .hasMessageContaining("peak clients = 0");
    assertThatThrownBy(() -> parse("--setups", "tomcat-everything")).hasMessageContaining("unknown setup");
  }
}
