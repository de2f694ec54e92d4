package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Bad input on the drill's command line: one line naming the option, the value and what is allowed; exit 2. */
class DrillMainTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--drill nosuch      | --drill nosuch: no such drill; one or more of kill-owner",
      "--scope foo         | --scope foo: not one of SESSION, MODIFIED_SESSION, MODIFIED_ATTRIBUTE, all",
      "--mode LAZY         | --mode LAZY: not one of SYNC, ASYNC, all",
      "--balancer nginx    | --balancer nginx: not one of sticky, haproxy, all",
      "--users 0           | --users 0: must be between 1 and 1000",
      "--writes 0          | --writes 0: must be at least 1",
      "--max-writes 5      | --max-writes 5: must be at least --writes (30)"
  })
  void badValue_isOneLineNamingIt_andExits2(String arguments, String expected) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream previous = System.err;
    int exit;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      exit = new CommandLine(new DrillMain()).execute(arguments.trim().split("\\s+"));
    } finally {
      System.setErr(previous);
    }

    String printed = err.toString(StandardCharsets.UTF_8);
    assertThat(exit).isEqualTo(2);
    assertThat(printed.lines().toList()).hasSize(1);
    assertThat(printed).startsWith("tandem drill: " + expected.trim());
  }
}
