package io.tandem.benchmarks.load;

import java.util.List;

/**
 * One node of the system under test: where its page lives. Users are dealt to targets round-robin (user {@code u} goes
 * to target {@code u mod n}) and stay on theirs for the whole step, as a sticky load balancer would keep them.
 *
 * @param host name or literal address of the node (IPv6 literals without brackets)
 * @param port TCP port of its HTTP connector
 * @param path absolute path of the benchmark page, without query, e.g. {@code /bench/page}
 */
public record Target(String host, int port, String path) {

  public Target {
    new Violations("target")
        .check(host != null && !host.isBlank() && host.chars().noneMatch(Target::unsafe), "host", host,
            "a host name or address without spaces or control characters")
        .check(port >= 1 && port <= 65535, "port", port, "between 1 and 65535")
        .check(path != null && path.startsWith("/") && path.chars().noneMatch(c -> unsafe(c) || c == '?' || c == '#'),
            "path", path, "an absolute path starting with '/', without query, fragment, spaces or control characters")
        .throwIfAny();
  }

  /** Parses {@code host:port/path}, e.g. {@code 127.0.0.1:8081/bench/page} or {@code [::1]:8081/bench/page}. */
  public static Target parse(String spec) {
    if (spec == null) {
      throw new InvalidConfigException("target", List.of("target is missing (must be host:port/path)"));
    }
    int slash = spec.indexOf('/', spec.startsWith("[") ? Math.max(spec.indexOf(']'), 0) : 0);
    String authority = slash < 0 ? spec : spec.substring(0, slash);
    String path = slash < 0 ? "" : spec.substring(slash);
    int colon = authority.lastIndexOf(':');
    if (colon < 0 || (authority.startsWith("[") && colon < authority.indexOf(']'))) {
      throw new InvalidConfigException("target",
          List.of("target = " + spec + " (must be host:port/path, the port is missing)"));
    }
    String host = authority.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(authority.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1; // reported by the constructor with the other violations
    }
    return new Target(host, port, path);
  }

  /** The Host header value: {@code host:port}, IPv6 literals in brackets. */
  public String authority() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  @Override
  public String toString() {
    return authority() + path;
  }

  private static boolean unsafe(int c) {
    return c <= ' ' || c == 0x7f;
  }
}
