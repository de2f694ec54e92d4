package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input on the drill's command line: one line naming the option, the value and what is allowed; exit 2. */
class DrillMainTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "--drill nosuch      | --drill nosuch: no such drill; one or more of kill-owner",
      "--scope foo         | --scope foo: not one of SESSION, MODIFIED_SESSION, MODIFIED_ATTRIBUTE, all",
      "--mode LAZY         | --mode LAZY: not one of SYNC, ASYNC, all",
      "--balancer nginx    | --balancer nginx: not one of sticky, haproxy, httpd, all",
      "--users 0           | --users 0: must be between 1 and 64",
      "--users 65          | --users 65: must be between 1 and 64",
      "--writes 0          | --writes 0: must be between 6 and 5000",
      "--writes 3          | --writes 3: must be between 6 and 5000",
      "--max-writes 5      | --max-writes 5: must be between --writes (30) and 5000",
      "--max-writes 6000   | --max-writes 6000: must be between --writes (30) and 5000",
      "--keep-runs 0       | --keep-runs 0: must be at least 1 (this run's folder)",
      "--nodes 4           | --nodes 4: must be 2 or 3",
      "--drill kill-owner,hang-owner --nodes 2 | --nodes 2: hang-owner does not run on 2 nodes; only kill-owner, kill-buddy and two-apps also run on 2",
      "--nosuch            | Unknown option: '--nosuch' (the options: tandem drill --help)",
      "--users many        | Invalid value for option '--users': 'many' is not an int",
      "--users             | Missing required parameter for option '--users'",
      "--home /nonexistent/tandem | --home /nonexistent/tandem: no Tomcat 10.1 distribution unpacked in /nonexistent/tandem/dist"
  })
  void badValue_isOneLineNamingIt_andExits2(String arguments, String expected) {
    Run run = run(arguments.trim().split("\\s+"));

    assertThat(run.exit).isEqualTo(2);
    assertThat(run.err.lines().toList()).hasSize(1);
    assertThat(run.err).startsWith("tandem drill: " + expected.trim());
    assertThat(run.out).isEmpty();
  }

  @Test
  void partitionNamedWhereNamespacesCannotBeMade_isRefusedBeforeAnythingStarts() {
    Optional<String> unavailable = NetworkNamespaces.unavailableReason();
    assumeTrue(unavailable.isPresent(), "network namespaces can be made here: the drill would run");

    Run run = run("--drill", "partition");

    assertThat(run.exit).isEqualTo(2);
    assertThat(run.err).isEqualTo("tandem drill: --drill partition: " + unavailable.get() + System.lineSeparator());
  }

  @Test
  void httpdNamedWhereApache2IsMissing_isRefusedBeforeAnythingStarts() {
    assumeTrue(HttpdBalancer.installedVersion().isEmpty(), "apache2 is installed: the drill would run");

    Run run = run("--balancer", "httpd");

    assertThat(run.exit).isEqualTo(2);
    assertThat(run.err).isEqualTo("tandem drill: --balancer httpd: apache2 is not installed (Debian: apt-get install apache2)"
        + System.lineSeparator());
    assertThat(run.out).isEmpty();
  }

  @Test
  void full_runsEveryDrill_orThoseNamed_andNoneNamedRunsKillOwner() {
    assertThat(parsed("--full").drills()).containsExactly(Drill.values());
    assertThat(parsed("--full", "--drill", "hang-owner,form-login").drills())
        .containsExactly(Drill.fromCliName("hang-owner"), Drill.fromCliName("form-login"));
    assertThat(parsed().drills()).containsExactly(Drill.fromCliName("kill-owner"));
  }

  private static DrillMain parsed(String... arguments) {
    DrillMain main = new DrillMain();
    new picocli.CommandLine(main).parseArgs(arguments);
    return main;
  }

  @Test
  void version_printsTheProjectVersion_andExits0() {
    Run run = run("-V");

    assertThat(run.exit).isZero();
    assertThat(run.out).matches("Tandem \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
    assertThat(run.err).isEmpty();
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(String... arguments) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream previousOut = System.out;
    PrintStream previousErr = System.err;
    int exit;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      exit = DrillMain.commandLine().execute(arguments);
    } finally {
      System.setOut(previousOut);
      System.setErr(previousErr);
    }
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
