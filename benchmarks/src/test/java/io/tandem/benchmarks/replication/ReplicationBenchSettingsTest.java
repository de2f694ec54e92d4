package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ReplicationBenchSettingsTest {

  private static ReplicationBenchSettings parse(String... args) {
    ReplicationBenchMain main = new ReplicationBenchMain();
    new CommandLine(main).parseArgs(args);
    return main.settings();
  }

  @Test
  void parse_defaults_runAllFourVariantsTandemFirstAtHalfACoreEach() {
    ReplicationBenchSettings settings = parse();
    assertThat(settings.variants())
        .containsExactly(Variant.TANDEM, Variant.TANDEM_ASYNC, Variant.FLOOR_PER_UPDATE, Variant.FLOOR_BATCHED);
    assertThat(settings.writers()).isEqualTo(16);
    assertThat(settings.attributeBytes()).isEqualTo(1024);
    assertThat(settings.cpuCores()).isEqualTo(0.5);
    assertThat(settings.cfsPeriod()).isEqualTo(Duration.ofMillis(100));
    assertThat(settings.window()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.ackTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.measuresTandem()).isTrue();
  }

  @Test
  void parse_durationsWithUnitsAndAVariantList_areTaken() {
    ReplicationBenchSettings settings = parse("--writers", "4", "--warm-up", "500ms", "--settle", "0ms", "--window", "1s",
        "--variants", "floor-batched,tandem", "--cfs-period", "20ms", "--cpu", "0.25");
    assertThat(settings.warmUp()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.settle()).isZero();
    assertThat(settings.variants()).containsExactly(Variant.FLOOR_BATCHED, Variant.TANDEM);
    assertThat(settings.cfsPeriod()).isEqualTo(Duration.ofMillis(20));
  }

  @Test
  void parse_everyViolation_isReportedAtOnceNamingOptionAndValue() {
    assertThatThrownBy(() -> parse("--writers", "0", "--attribute-bytes", "0", "--window", "0s", "--cpu", "0",
        "--warm-up", "ten seconds", "--variants", "tandem,turbo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--writers = 0 (must be 1 to 1024)")
        .hasMessageContaining("--attribute-bytes = 0")
        .hasMessageContaining("--window = 0ms (must be more than 0")
        .hasMessageContaining("--cpu = 0.0")
        .hasMessageContaining("--warm-up = 'ten seconds'")
        .hasMessageContaining("unknown variant 'turbo' (known: tandem, tandem-async, floor-per-update, floor-batched)");
  }

  @Test
  void parse_aQuotaBelowTheKernelsMinimum_isRefused() {
    assertThatThrownBy(() -> parse("--cpu", "0.005", "--cfs-period", "100ms"))
        .hasMessageContaining("below the kernel's 1 ms minimum");
    assertThatThrownBy(() -> parse("--cfs-period", "2s")).hasMessageContaining("--cfs-period = 2s (the kernel accepts 1ms to 1s)");
  }

  @Test
  void parse_aVariantTwiceOrNone_isRefused() {
    assertThatThrownBy(() -> parse("--variants", "tandem,tandem")).hasMessageContaining("each at most once");
    ReplicationBenchMain main = new ReplicationBenchMain();
    new CommandLine(main).parseArgs();
    main.variants = java.util.List.of();
    assertThatThrownBy(main::settings).hasMessageContaining("--variants: (none)");
  }

  @Test
  void parse_negativeWarmUpOrAckTimeoutOfZero_isRefused() {
    assertThatThrownBy(() -> parse("--ack-timeout", "0ms")).hasMessageContaining("--ack-timeout = 0ms (must be positive)");
  }

  @Test
  void execute_invalidSettings_exitsWithTheUsageCodeBeforeAnyProcessStarts() {
    assertThat(ReplicationBenchMain.execute("--replication", "--writers", "0")).isEqualTo(CommandLine.ExitCode.USAGE);
  }
}
