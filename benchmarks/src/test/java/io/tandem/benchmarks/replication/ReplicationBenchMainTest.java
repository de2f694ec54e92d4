package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.benchmarks.CommandLinesRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input on {@code ./tandem bench --replication}: one line naming the option, the value and what is allowed; exit 2. */
class ReplicationBenchMainTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "--variants nosuch       | --variants: unknown variant 'nosuch' (known: tandem, tandem-async, floor-per-update, floor-batched)",
      "--variants tandem,tandem | --variants = [tandem, tandem] (each at most once)",
      "--writers 0             | --writers = 0 (must be 1 to 1024)",
      "--cpu -1                | --cpu = -1.0 (cores per process: more than 0, at most 64)",
      "--window 0s             | --window = 0ms (must be more than 0 and at most 1h)",
      "--warm-up soon          | --warm-up = 'soon': ",
      "--cfs-period 2s         | --cfs-period = 2s (the kernel accepts 1ms to 1s)",
      "--ack-timeout 0ms       | --ack-timeout = 0ms (must be positive)",
      "--nosuch                | Unknown option: '--nosuch' (the options: tandem bench --replication --help)",
      "--writers many          | Invalid value for option '--writers': 'many' is not an int"
  })
  void badInput_isOneLineNamingIt_andExits2(String arguments, String expected) {
    CommandLinesRun run = CommandLinesRun.of(() -> ReplicationBenchMain.execute(("--replication " + arguments.trim()).split("\\s+")));

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().lines().toList()).hasSize(1);
    assertThat(run.err()).startsWith("tandem bench --replication: ").contains(expected.trim());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void version_printsTheProjectVersion_andExits0() {
    CommandLinesRun run = CommandLinesRun.of(() -> ReplicationBenchMain.execute("--replication", "-V"));

    assertThat(run.exit()).isZero();
    assertThat(run.out()).matches("Tandem \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
  }
}
