package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The httpd configuration the drill runs is the one docs/tomcat.md shows operators: the docs cannot drift from it.
 */
class HttpdBalancerTest {
  /** The members docs/tomcat.md's example is written for. */
  private static final List<HttpdBalancer.Member> DOCS_MEMBERS = List.of(
      new HttpdBalancer.Member("10.0.0.1", 8080, "node1"),
      new HttpdBalancer.Member("10.0.0.2", 8080, "node2"),
      new HttpdBalancer.Member("10.0.0.3", 8080, "node3"));
  private static final List<HttpdBalancer.Member> DRILL_MEMBERS = List.of(
      new HttpdBalancer.Member("127.0.0.1", 8081, "n1"),
      new HttpdBalancer.Member("127.0.0.1", 8082, "n2"));

  @TempDir
  Path temp;

  @Test
  void docsShowTheBlockTheDrillRuns_withTheirAddressesAndRoutes() throws IOException {
    assertThat(docsBlockWith("<Proxy \"balancer://"))
        .as("docs/tomcat.md's httpd example differs from HttpdBalancer.documented(); change both together")
        .isEqualTo(HttpdBalancer.documented(DOCS_MEMBERS));
  }

  @Test
  void config_isStandaloneBoilerplateThenTheDocumentedBlock() {
    String config = HttpdBalancer.config(DRILL_MEMBERS, 18080, temp);

    assertThat(config).endsWith(HttpdBalancer.documented(DRILL_MEMBERS));
    assertThat(config).contains("ServerRoot \"" + temp + "\"\n", "Listen 127.0.0.1:18080\n", "PidFile run/httpd.pid\n",
        "ErrorLog logs/error.log\n", "CustomLog logs/access.log drill\n");
    // Tomcat appends ".<jvmRoute>" to the session id; httpd routes on what follows the first '.'.
    assertThat(config).contains("BalancerMember \"http://127.0.0.1:8081\" route=n1 ", "hcuri=/app/status.jsp ",
        "stickysession=JSESSIONID|jsessionid");
  }

  /** httpd's own syntax check of the drill's configuration, where Debian's apache2 is installed. */
  @Test
  void apache2AcceptsTheDrillsConfiguration() throws Exception {
    assumeTrue(HttpdBalancer.installedVersion().isPresent(),
        "apache2 is not installed (Debian: apt-get install apache2; .ci/run installs it): its syntax check is skipped");
    Path config = HttpdBalancer.writeServerRoot(DRILL_MEMBERS, 18080, temp.resolve("httpd"));

    Process check = new ProcessBuilder(HttpdBalancer.APACHE2.toString(), "-t", "-f", config.toString())
        .redirectErrorStream(true).start();
    String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(check.exitValue()).as(output).isZero();
    assertThat(output).as(output).contains("Syntax OK");
  }

  /** The first fenced block of docs/tomcat.md that contains {@code marker}, with its line ends. */
  private static String docsBlockWith(String marker) throws IOException {
    List<String> lines = Files.readAllLines(docs(), StandardCharsets.UTF_8);
    List<String> block = new ArrayList<>();
    boolean inBlock = false;
    for (String line : lines) {
      if (line.startsWith("```")) {
        if (inBlock && String.join("\n", block).contains(marker)) {
          return String.join("\n", block) + "\n";
        }
        inBlock = !inBlock;
        block.clear();
      } else if (inBlock) {
        block.add(line);
      }
    }
    throw new AssertionError("docs/tomcat.md has no fenced block with " + marker);
  }

  /** docs/tomcat.md, found from the module's directory (where the tests run) or the repository's root. */
  static Path docs() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path docs = dir.resolve("docs/tomcat.md");
      if (Files.isRegularFile(docs)) {
        return docs;
      }
    }
    throw new AssertionError("docs/tomcat.md not found above " + Path.of("").toAbsolutePath());
  }
}
