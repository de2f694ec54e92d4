package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A private network for a drill, built with {@code ip netns} (root only): one namespace per node, each with one
 * address on a bridge that lives in a hub namespace of its own, and one veth from this (the drill's) namespace to
 * the bridge, so the drill's load balancer reaches every node. Nothing is routed or forwarded in this namespace.
 * A partition is made with blackhole routes inside the nodes' namespaces, so no firewall tool is needed.
 *
 * <p>Implementation notes: built and torn down by the drill thread; every name carries a random run id, and
 * {@link #close()} deletes exactly what {@link #create} made.
 */
final class NetworkNamespaces implements AutoCloseable {
  private final String run;
  private final int subnet;
  private final int nodes;
  private final List<String> created = new ArrayList<>();
  private String rootLink;

  private NetworkNamespaces(String run, int subnet, int nodes) {
    this.run = run;
    this.subnet = subnet;
    this.nodes = nodes;
  }

  /** Why namespaces cannot be used here, or empty when they can. */
  static Optional<String> unavailableReason() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of("network namespaces need root (running as " + System.getProperty("user.name") + ")");
    }
    String probe = "tdprobe" + ProcessHandle.current().pid();
    try {
      run("ip", "netns", "add", probe);
      run("ip", "netns", "del", probe);
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("ip netns is not usable here: " + e.getMessage());
    }
  }

  /** Namespaces for {@code nodes} nodes on 10.213.x.0/24 (x random, not already routed here). */
  static NetworkNamespaces create(int nodes, PrintStream progress) throws IOException {
    String routes = run("ip", "route", "show");
    int subnet = -1;
    for (int attempt = 0; attempt < 50 && subnet < 0; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(1, 255);
      if (!routes.contains("10.213." + candidate + ".")) {
        subnet = candidate;
      }
    }
    if (subnet < 0) {
      throw new IOException("no free 10.213.x.0/24 subnet");
    }
    String run = Integer.toString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff), 16);
    NetworkNamespaces network = new NetworkNamespaces(run, subnet, nodes);
    try {
      network.build();
    } catch (IOException | RuntimeException e) {
      network.close();
      throw e;
    }
    progress.println("Network namespaces td" + run + "-* on 10.213." + subnet + ".0/24");
    return network;
  }

  private void build() throws IOException {
    String hub = namespace("hub");
    add(hub);
    run("ip", "-n", hub, "link", "add", "br0", "type", "bridge");
    run("ip", "-n", hub, "link", "set", "br0", "up");
    for (int i = 1; i <= nodes; i++) {
      String ns = namespace("n" + i);
      add(ns);
      String inside = "td" + run + "n" + i + "a";
      String port = "td" + run + "n" + i + "b";
      run("ip", "link", "add", inside, "type", "veth", "peer", "name", port);
      run("ip", "link", "set", inside, "netns", ns);
      run("ip", "link", "set", port, "netns", hub);
      run("ip", "-n", hub, "link", "set", port, "master", "br0", "up");
      run("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", inside);
      run("ip", "-n", ns, "link", "set", inside, "up");
      run("ip", "-n", ns, "link", "set", "lo", "up");
    }
    rootLink = "td" + run + "ra";
    String rootPort = "td" + run + "rb";
    run("ip", "link", "add", rootLink, "type", "veth", "peer", "name", rootPort);
    run("ip", "link", "set", rootPort, "netns", hub);
    run("ip", "-n", hub, "link", "set", rootPort, "master", "br0", "up");
    run("ip", "addr", "add", "10.213." + subnet + ".254/24", "dev", rootLink);
    run("ip", "link", "set", rootLink, "up");
  }

  private void add(String namespace) throws IOException {
    run("ip", "netns", "add", namespace);
    created.add(namespace);
  }

  private String namespace(String suffix) {
    return "td" + run + "-" + suffix;
  }

  /** Node i's address (1-based). */
  String address(int node) {
    return "10.213." + subnet + "." + node;
  }

  /** What to put before a command so it runs in node i's namespace. */
  List<String> launcher(int node) {
    return List.of("ip", "netns", "exec", namespace("n" + node));
  }

  /** Cuts node i off from every other node and from the drill's load balancer, both ways; its process runs on. */
  void isolate(int node) throws IOException {
    blackholes(node, "add");
  }

  /** Undoes {@link #isolate}. */
  void heal(int node) throws IOException {
    blackholes(node, "del");
  }

  private void blackholes(int node, String action) throws IOException {
    for (int other = 1; other <= nodes; other++) {
      if (other != node) {
        run("ip", "-n", namespace("n" + node), "route", action, "blackhole", address(other) + "/32");
        run("ip", "-n", namespace("n" + other), "route", action, "blackhole", address(node) + "/32");
      }
    }
    run("ip", "-n", namespace("n" + node), "route", action, "blackhole", "10.213." + subnet + ".254/32");
  }

  @Override
  public void close() {
    for (String namespace : created) {
      try {
        run("ip", "netns", "del", namespace);
      } catch (IOException e) {
        System.err.println("Could not delete network namespace " + namespace + ": " + e.getMessage());
      }
    }
    created.clear();
    if (rootLink != null) {
      try {
        run("ip", "link", "del", rootLink); // usually gone with its peer's namespace already
      } catch (IOException e) {
        // already deleted
      }
      rootLink = null;
    }
  }

  private static String run(String... command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 20 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running " + String.join(" ", command), e);
    }
    if (process.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output);
    }
    return output;
  }
}
