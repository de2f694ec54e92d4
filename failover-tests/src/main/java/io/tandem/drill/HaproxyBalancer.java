package io.tandem.drill;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real HAProxy in front of the nodes, configured as docs/tomcat.md's load-balancer example: the session id's
 * jvmRoute suffix picks the server, {@code option redispatch 1} and retries move a request whose connection fails,
 * HTTP health checks take a dead or hung node out of the rotation. Runs as a child process the drill started.
 */
final class HaproxyBalancer implements LoadBalancer {
  private final BalancerProcess process;
  private final String version;

  private HaproxyBalancer(BalancerProcess process, String version) {
    this.process = process;
    this.version = version;
  }

  /** The {@code haproxy} on the PATH, or empty when it is not installed. */
  static Optional<String> installedVersion() {
    return BalancerProcess.firstLineOf("haproxy", "-v").map(line -> line.isEmpty() ? "HAProxy" : line);
  }

  static HaproxyBalancer start(List<TomcatProcess> nodes, Path work) throws Exception {
    String version = installedVersion().orElseThrow(() -> new IllegalStateException(
        "haproxy is not installed (Debian: apt-get install haproxy); run the drill with --balancer sticky"));
    int port = DrillCluster.freePort();
    Path config = work.resolve("haproxy.cfg");
    Files.writeString(config, config(nodes, port), StandardCharsets.UTF_8);
    Path log = work.resolve("haproxy.log");
    return new HaproxyBalancer(BalancerProcess.start("haproxy", List.of("haproxy", "-db", "-f", config.toString()), log,
        port, log, Duration.ofSeconds(30)), version);
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
          option redispatch 1
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

  @Override
  public String describe() {
    return version;
  }

  @Override
  public Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home) {
    return process.send(pathAndQuery, form, sessionId);
  }

  @Override
  public void close() {
    process.close();
  }
}
