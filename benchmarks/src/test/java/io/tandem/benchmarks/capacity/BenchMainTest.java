package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.benchmarks.CommandLinesRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input on {@code ./tandem bench}: one line naming the option, the value and what is allowed; exit 2; nothing started. */
class BenchMainTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "--setups nosuch             | --setups nosuch: no such setup; one or more of no-replication, tandem-session-sync",
      "--setups tomcat-backup,tomcat-backup | --setups tomcat-backup,tomcat-backup: each setup at most once",
      "--repeats 0                 | --repeats 0: must be between 1 and 100",
      "--repeats 101               | --repeats 101: must be between 1 and 100",
      "--cpu -1                    | --cpu -1: cores per node, more than 0 and at most 64",
      "--cpu 65                    | --cpu 65: cores per node, more than 0 and at most 64",
      "--cfs-period-ms 2000        | --cfs-period-ms 2000: must be between 1 and 1000",
      "--cpu 0.005                 | --cpu 0.005 with --cfs-period-ms 100: a CFS quota of 0.5 ms, below the kernel's 1 ms minimum",
      "--budget-ms 0               | --budget-ms 0: must be between 1 and 86400000",
      "--pages 0                   | --pages 0: must be between 1 and 1000000",
      "--attribute-bytes -1        | --attribute-bytes -1: must be between 0 and 16777216",
      "--think-ms -5               | --think-ms -5: must be between 0 and 86400000",
      "--warm-up-s -1              | --warm-up-s -1: must be between 0 and 86400",
      "--window-s 0                | --window-s 0: must be between 1 and 86400",
      "--start-users 20000         | --start-users 20000: must be between 1 and --max-users (12000)",
      "--max-users 50              | --max-users 50: must be at least the first step, --start-users (400)",
      "--max-steps 0               | --max-steps 0: must be between 1 and 1000",
      "--overhead-users 0          | --overhead-users 0: must be between 1 and 1000000",
      "--peak-clients 0            | --peak-clients 0: must be between 1 and 1000000",
      "--nosuch                    | Unknown option: '--nosuch' (the options: tandem bench --help)",
      "--repeats two               | Invalid value for option '--repeats': 'two' is not an int",
      "--cpu                       | Missing required parameter for option '--cpu'",
      "--home /nonexistent/tandem  | --home /nonexistent/tandem: no Tomcat distribution under /nonexistent/tandem/dist"
  })
  void badInput_isOneLineNamingIt_andExits2(String arguments, String expected) {
    CommandLinesRun run = CommandLinesRun.of(() -> BenchMain.execute(arguments.trim().split("\\s+")));

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().lines().toList()).hasSize(1);
    assertThat(run.err()).startsWith("tandem bench: " + expected.trim());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void version_printsTheProjectVersion_andExits0() {
    CommandLinesRun run = CommandLinesRun.of(() -> BenchMain.execute("-V"));

    assertThat(run.exit()).isZero();
    assertThat(run.out()).matches("Tandem \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
  }
}
