package io.tandem.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real HAProxy in front of the nodes, configured as docs/tomcat.md's load-balancer example: the session id's
 * jvmRoute suffix picks the server, {@code option redispatch} and retries move a request whose connection fails,
 * HTTP health checks take a dead or hung node out of the rotation. Runs as a child process the drill started.
 */
final class HaproxyBalancer implements LoadBalancer {
  private final Process process;
  private final int port;
  private final String version;
  private final HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(8));

  private HaproxyBalancer(Process process, int port, String version) {
    this.process = process;
    this.port = port;
    this.version = version;
  }

  /** The {@code haproxy} on the PATH, or empty when it is not installed. */
  static Optional<String> installedVersion() {
    try {
      Process probe = new ProcessBuilder("haproxy", "-v").redirectErrorStream(true).start();
      String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!probe.waitFor(10, TimeUnit.SECONDS) || probe.exitValue() != 0) {
        return Optional.empty();
      }
      return Optional.of(output.lines().findFirst().orElse("HAProxy").trim());
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  static HaproxyBalancer start(List<TomcatProcess> nodes, Path work) throws Exception {
    String version = installedVersion().orElseThrow(() -> new IllegalStateException(
        "haproxy is not installed (Debian: apt-get install haproxy); run the drill with --balancer sticky"));
    int port = DrillCluster.freePort();
    Path config = work.resolve("haproxy.cfg");
    Files.writeString(config, config(nodes, port), StandardCharsets.UTF_8);
    Process process = new ProcessBuilder("haproxy", "-db", "-f", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(work.resolve("haproxy.log").toFile())
        .start();
    HaproxyBalancer balancer = new HaproxyBalancer(process, port, version);
    balancer.awaitServing(Duration.ofSeconds(30), work);
    return balancer;
  }

  /**
   * The configuration docs/tomcat.md ("Load balancer examples") shows operators, with this drill's addresses and
   * ports; change both together, as the doc tells readers to diff theirs against this one.
   */
  static String config(List<TomcatProcess> nodes, int port) {
    StringBuilder cfg = new StringBuilder("""
        global
          maxconn 512
        defaults
          mode http
          timeout connect 1s
          timeout client 30s
          timeout server 6s
          retries 2
          option redispatch
        frontend tandem
          bind 127.0.0.1:%d
          default_backend tomcats
        backend tomcats
          balance roundrobin
          option httpchk GET /app/status.jsp
          default-server inter 500ms fall 2 rise 2
        """.formatted(port));
    for (TomcatProcess node : nodes) {
      cfg.append("  use-server ").append(node.route).append(" if { req.cook(JSESSIONID) -m end .").append(node.route).append(" }\n");
    }
    for (TomcatProcess node : nodes) {
      cfg.append("  server ").append(node.route).append(" ").append(node.host).append(":").append(node.httpPort).append(" check\n");
    }
    return cfg.toString();
  }

  private void awaitServing(Duration timeout, Path work) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("haproxy exited at start; see " + work.resolve("haproxy.log"));
      }
      if (http.send("http://127.0.0.1:" + port, "/app/status.jsp", null, null).status() == 200) {
        return;
      }
      Thread.sleep(100); // haproxy binds and runs its first health checks; bounded by the deadline
    }
    throw new IllegalStateException("haproxy did not serve within " + timeout + "; see " + work.resolve("haproxy.log"));
  }

  @Override
  public String describe() {
    return version;
  }

  @Override
  public Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home) {
    return http.send("http://127.0.0.1:" + port, pathAndQuery, form, sessionId);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
