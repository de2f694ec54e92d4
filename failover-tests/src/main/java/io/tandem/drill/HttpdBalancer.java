package io.tandem.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A real Apache httpd ({@code mod_proxy_balancer}, {@code mod_proxy_hcheck}) in front of the nodes, configured as
 * docs/tomcat.md's httpd example: the session id's jvmRoute suffix picks the member ({@code stickysession}), a member
 * whose connection is refused is put in error and the request goes to another, health checks take a dead or hung
 * node out. Debian's {@code apache2} package, run as a child process of the drill in its own ServerRoot under the
 * drill's folder; the system's httpd configuration is not read.
 */
final class HttpdBalancer implements LoadBalancer {
  /** Debian's binary; /usr/sbin is not on a non-root user's PATH, so it is not looked up there. */
  static final Path APACHE2 = Path.of("/usr/sbin/apache2");
  /** Debian's httpd modules; the ServerRoot's {@code modules} links here so the documented LoadModule lines load as written. */
  static final Path MODULES = Path.of("/usr/lib/apache2/modules");
  /** The docs' balancer name; the drill keeps it, so its block reads as the docs' does. */
  private static final String BALANCER = "shop";

  /** One BalancerMember: a node's address and its Tomcat's jvmRoute. */
  record Member(String host, int port, String route) {}

  private final BalancerProcess process;
  private final String version;

  private HttpdBalancer(BalancerProcess process, String version) {
    this.process = process;
    this.version = version;
  }

  /**
   * Debian's {@code apache2} ("Apache httpd 2.4.71 (Debian)"), or empty when it is not installed or lacks {@code
   * mod_proxy_hcheck}, which the configuration needs.
   */
  static Optional<String> installedVersion() {
    if (!Files.isExecutable(APACHE2) || !Files.isRegularFile(MODULES.resolve("mod_proxy_hcheck.so"))) {
      return Optional.empty();
    }
    // "Server version: Apache/2.4.71 (Debian)" then "Server built: ..."
    return BalancerProcess.firstLineOf(APACHE2.toString(), "-v")
        .map(line -> ("Apache httpd " + line.replaceFirst("^Server version:\\s*Apache/", "").trim()).trim());
  }

  static HttpdBalancer start(List<TomcatProcess> nodes, Path work) throws Exception {
    String version = installedVersion().orElseThrow(() -> new IllegalStateException(
        "apache2 is not installed (Debian: apt-get install apache2); run the drill with --balancer sticky"));
    int port = DrillCluster.freePort();
    // Absolute: httpd reads a relative -f path and ServerRoot against its compiled-in root (/etc/apache2).
    Path root = work.toAbsolutePath().resolve("httpd");
    Path config = writeServerRoot(members(nodes), port, root);
    // -DFOREGROUND: httpd's parent stays the process started here, so it is stopped by its own PID.
    return new HttpdBalancer(BalancerProcess.start("apache2", List.of(APACHE2.toString(), "-f", config.toString(),
        "-DFOREGROUND"), root.resolve("logs/console.log"), port, root.resolve("logs"), Duration.ofSeconds(30)), version);
  }

  /** httpd's own ServerRoot: {@code httpd.conf}, {@code logs/}, {@code run/} and {@code modules} (Debian's); returns the conf. */
  static Path writeServerRoot(List<Member> members, int port, Path root) throws IOException {
    if (!root.isAbsolute()) {
      throw new IllegalArgumentException("httpd's ServerRoot must be absolute, not " + root);
    }
    Files.createDirectories(root.resolve("logs"));
    Files.createDirectories(root.resolve("run"));
    if (!Files.exists(root.resolve("modules"), LinkOption.NOFOLLOW_LINKS)) {
      Files.createSymbolicLink(root.resolve("modules"), MODULES);
    }
    Path config = root.resolve("httpd.conf");
    Files.writeString(config, config(members, port, root), StandardCharsets.UTF_8);
    return config;
  }

  static List<Member> members(List<TomcatProcess> nodes) {
    return nodes.stream().map(n -> new Member(n.host, n.httpPort, n.route)).toList();
  }

  /**
   * The whole httpd.conf: what a standalone httpd needs (its ServerRoot, the loopback port, pid file, logs, the MPM,
   * the user its workers run as when started as root), then {@link #documented}.
   */
  static String config(List<Member> members, int port, Path root) {
    return """
        # Apache httpd for a failover drill (HttpdBalancer). Below the line: docs/tomcat.md's example, as written there.
        ServerRoot "%s"
        Listen 127.0.0.1:%d
        ServerName 127.0.0.1
        PidFile run/httpd.pid
        DefaultRuntimeDir run
        ErrorLog logs/error.log
        LogLevel warn
        LoadModule mpm_event_module modules/mod_mpm_event.so
        # Without an authorization module httpd answers every request 500 ("couldn't check user").
        LoadModule authz_core_module modules/mod_authz_core.so
        # Started as root, httpd serves from workers running as this user (Debian's); it refuses to serve as root.
        # mod_unixd (User) and mod_log_config are compiled into Debian's apache2 (apache2 -l): no LoadModule.
        User www-data
        Group www-data
        LogFormat "%%h %%t \\"%%r\\" %%>s %%D us route=%%{BALANCER_WORKER_ROUTE}e" drill
        CustomLog logs/access.log drill
        # ---------------------------------------------------------------------------------------------------------
        """.formatted(root, port) + documented(members);
  }

  /**
   * The block docs/tomcat.md ("Load balancer examples") shows operators, with {@code members} substituted;
   * HttpdBalancerTest checks the docs against it, so change both together.
   */
  static String documented(List<Member> members) {
    String balancerMembers = members.stream()
        .map(m -> "    BalancerMember \"http://" + m.host() + ":" + m.port() + "\" route=" + m.route()
            + " connectiontimeout=1 timeout=6 retry=1 hcmethod=GET hcuri=/app/status.jsp hcexpr=ok200 hcinterval=1"
            + " hcfails=2 hcpasses=2\n")
        .collect(Collectors.joining());
    return """
        LoadModule proxy_module modules/mod_proxy.so
        LoadModule proxy_http_module modules/mod_proxy_http.so
        LoadModule proxy_balancer_module modules/mod_proxy_balancer.so
        LoadModule proxy_hcheck_module modules/mod_proxy_hcheck.so
        LoadModule lbmethod_byrequests_module modules/mod_lbmethod_byrequests.so
        LoadModule slotmem_shm_module modules/mod_slotmem_shm.so
        <IfModule !watchdog_module>
            LoadModule watchdog_module modules/mod_watchdog.so
        </IfModule>

        ProxyHCExpr ok200 {%%{REQUEST_STATUS} == 200}
        <Proxy "balancer://%1$s">
        %2$s    ProxySet stickysession=JSESSIONID|jsessionid lbmethod=byrequests
        </Proxy>
        ProxyPass        "/" "balancer://%1$s/"
        ProxyPassReverse "/" "balancer://%1$s/"
        """.formatted(BALANCER, balancerMembers);
  }

  @Override
  public String describe() {
    return version;
  }

  @Override
  public Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home) {
    return process.send(pathAndQuery, form, sessionId);
  }

  /** SIGTERM to httpd's parent, which stops its workers; if it does not exit, it and its workers are SIGKILLed. */
  @Override
  public void close() {
    process.close();
  }
}
