package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./tandem bench --quick} through its real path: real Tomcat processes with the drop-in jar, Tomcat's own
 * cluster, the cgroup cap (or its fallback), the load driver and the report. It checks that every setup was measured
 * and every result file written, never the figures: those belong to the benchmark, not to a test on a shared machine.
 */
class BenchQuickIT {

  @Test
  void theQuickRunMeasuresEverySetupAndWritesEveryResult() throws Exception {
    Path home = Path.of(System.getProperty("tandem.bench.home", "target"));
    Path results = Files.createDirectories(home.resolve("bench-results-it"));
    BenchMain main = new BenchMain();
    new CommandLine(main).parseArgs("--quick", "--home", home.toString(), "--results", results.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Path directory;
    try (PrintStream progress = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      directory = new BenchRun(main.settings(), "./tandem bench --quick", new TeeStream(progress)).run();
    }

    JsonNode report = new ObjectMapper().readTree(directory.resolve(ReportWriter.JSON).toFile());
    assertThat(report.get("outcomes")).hasSize(3);
    for (JsonNode outcome : report.get("outcomes")) {
      assertThat(outcome.get("failure").isNull()).as("%s failed: %s", outcome.get("setup"), outcome.get("failure")).isTrue();
      assertThat(outcome.get("search")).as("steps of %s", outcome.get("setup")).isNotEmpty();
      assertThat(outcome.get("peak").get("requests").asLong()).as("peak requests of %s", outcome.get("setup")).isPositive();
      assertThat(outcome.get("overhead").get("requests").asLong()).isPositive();
    }
    JsonNode tandem = report.get("outcomes").get(1);
    assertThat(tandem.get("setup").asText()).isEqualTo("tandem-modified-attribute-sync");
    assertThat(tandem.get("overhead").get("bytesReplicatedPerRequest").asDouble())
        .as("Tandem's replication counters were read through JMX").isPositive();
    assertThat(Files.readString(directory.resolve(ReportWriter.MARKDOWN))).contains("| Tomcat BackupManager |");
    assertThat(directory.resolve(ReportWriter.P90_CHART)).isNotEmptyFile();
    assertThat(directory.resolve(ReportWriter.USTAR_CHART)).isNotEmptyFile();
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("== Tandem MODIFIED_ATTRIBUTE SYNC").contains("U* =");
  }

  /** Progress goes to the test's output file as well as to the captured copy. */
  private static final class TeeStream extends PrintStream {
    TeeStream(PrintStream copy) {
      super(new java.io.OutputStream() {
        @Override
        public void write(int b) {
          copy.write(b);
          System.out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          copy.write(b, off, len);
          System.out.write(b, off, len);
        }
      }, true, StandardCharsets.UTF_8);
    }
  }
}
