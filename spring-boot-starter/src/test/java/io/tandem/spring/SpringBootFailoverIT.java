package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.testing.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Spring Boot applications with embedded Tomcat, each a JVM of its own, Tandem added by its auto-configuration
 * alone and configured by an {@code application.properties} like the one in docs/tomcat.md: a session created on
 * one is served, with its attribute, by the other after the first is killed with SIGKILL.
 */
class SpringBootFailoverIT {
  @TempDir Path work;

  private final List<Node> nodes = new ArrayList<>();
  private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
      .connectTimeout(Duration.ofSeconds(5)).build();

  @AfterEach
  void stop() {
    nodes.forEach(node -> node.process.destroyForcibly());
  }

  @Test
  void sessionOnAKilledApplication_isServedWithItsAttributeByTheOther() throws Exception {
    Path secret = work.resolve("tandem-secret");
    // What `openssl rand -base64 32 > tandem-secret` writes.
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    Files.writeString(secret, Base64.getEncoder().encodeToString(random) + "\n", StandardCharsets.UTF_8);
    String cluster = "spring-it-" + System.nanoTime();
    int[] membershipPorts = {FreePorts.loopback(), FreePorts.loopback()};
    String members = "127.0.0.1:" + membershipPorts[0] + ",127.0.0.1:" + membershipPorts[1];
    for (int i = 0; i < 2; i++) {
      String route = "n" + (i + 1);
      Path properties = Files.writeString(work.resolve(route + ".properties"), String.join("\n",
          "server.address=127.0.0.1",
          "server.port=" + FreePorts.loopback(),
          "tandem.jvm-route=" + route,
          "tandem.cluster-name=" + cluster,
          "tandem.shared-secret-file=" + secret,
          "tandem.bind-address=127.0.0.1",
          "tandem.transport-port=" + FreePorts.loopback(),
          "tandem.membership-port=" + membershipPorts[i],
          "tandem.members=" + members,
          "tandem.scope=MODIFIED_ATTRIBUTE",
          "tandem.mode=SYNC",
          ""), StandardCharsets.UTF_8);
      nodes.add(new Node(route, properties, work.resolve(route + ".log")));
    }
    for (Node node : nodes) {
      node.awaitReady();
    }
    Node n1 = nodes.get(0);
    Node n2 = nodes.get(1);
    // In SYNC mode a node alone in its view answers without a backup: write only once both see each other.
    await().atMost(Duration.ofSeconds(30)).until(() -> get(n1, "/buddy").body().equals("n2")
        && get(n2, "/buddy").body().equals("n1"));

    HttpResponse<String> written = get(n1, "/set?name=cart&value=book");
    assertThat(written.statusCode()).isEqualTo(200);
    assertThat(written.body()).startsWith("ok ").endsWith(".n1");

    n1.process.destroyForcibly();
    assertThat(n1.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

    // The first requests may meet the survivor while its view still holds n1 (503, retry); never a lost value.
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      HttpResponse<String> read = get(n2, "/get?name=cart");
      assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
      assertThat(read.body()).isEqualTo("book");
    });
  }

  private HttpResponse<String> get(Node node, String pathAndQuery) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort + pathAndQuery))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A {@link SessionApp} in a JVM of its own, which this test started and may SIGKILL. */
  private static final class Node {
    final Process process;
    final CompletableFuture<Integer> ready = new CompletableFuture<>();
    final Path log;
    int httpPort;

    Node(String route, Path properties, Path log) throws IOException {
      this.log = log;
      List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "-cp", System.getProperty("java.class.path"), SessionApp.class.getName(),
          "--spring.config.additional-location=file:" + properties);
      process = new ProcessBuilder(command).redirectError(log.toFile()).start();
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            if (line.startsWith("ready ")) {
              ready.complete(Integer.parseInt(line.substring(6).trim()));
            }
          }
        } catch (IOException e) {
          // the process died
        }
        ready.completeExceptionally(new IllegalStateException(route + " exited before it was ready"));
      }, "spring-app-" + route);
      reader.setDaemon(true);
      reader.start();
    }

    void awaitReady() throws Exception {
      try {
        httpPort = ready.get(90, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("application did not start; its log:\n" + Files.readString(log), e);
      }
    }
  }
}
