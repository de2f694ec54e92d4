package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.load.Target;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The two nodes of one setup, started uncapped and checked to replicate to each other before any load arrives. The
 * caller warms them up and then {@linkplain #cap caps} them: start-up, class loading and the JIT's first compilations
 * would otherwise spend the cap for minutes, more of it for the setups with more code on the request path.
 *
 * <p>Implementation notes: created and closed by the benchmark's main thread.
 */
final class NodePair implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration PAIRING_TIMEOUT = Duration.ofSeconds(90);

  final Setup setup;
  final List<BenchNode> nodes;

  private NodePair(Setup setup, List<BenchNode> nodes) {
    this.setup = setup;
    this.nodes = List.copyOf(nodes);
  }

  /** Starts the pair of {@code setup} under {@code work}, with a JFR recording when {@code flightRecording} is set. */
  static NodePair start(Setup setup, BenchHome home, Path work, boolean flightRecording) throws Exception {
    int[] replicationPorts = {freePort(), freePort()};
    int[] membershipPorts = {freePort(), freePort()};
    List<BenchNode> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        ManagerConfig config = ManagerConfig.of(setup, i, replicationPorts, membershipPorts);
        nodes.add(new BenchNode(home.catalinaHome(), work, home.dropin(), "n" + (i + 1), freePort(), config,
            flightRecording));
      }
      for (BenchNode node : nodes) {
        node.awaitReady(START_TIMEOUT);
      }
      NodePair pair = new NodePair(setup, nodes);
      pair.awaitPaired();
      return pair;
    } catch (Exception | Error e) {
      nodes.forEach(BenchNode::close);
      throw e;
    }
  }

  /**
   * Waits until the nodes replicate to each other: for Tandem until each names the other as its buddy; for Tomcat's
   * managers until a session written on one node is readable on the other (Tribes discovers static members a few
   * seconds after start).
   */
  private void awaitPaired() throws Exception {
    if (!setup.replicates()) {
      return;
    }
    long deadline = System.nanoTime() + PAIRING_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (paired()) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException(setup.label() + ": the two nodes did not start replicating to each other within "
        + PAIRING_TIMEOUT + "; see " + nodes.get(0).base().getParent());
  }

  private boolean paired() throws IOException, InterruptedException {
    if (setup.kind() == Setup.Kind.TANDEM) {
      for (BenchNode node : nodes) {
        String buddy = node.figures().getOrDefault("tandem.Buddy", "");
        if (buddy.isEmpty() || buddy.equals("null") || buddy.equals("none")) {
          return false;
        }
      }
      return true;
    }
    return SessionProbe.replicates(nodes.get(0), nodes.get(1));
  }

  /** Puts each node under {@code cap}, in a group named {@code <groupPrefix>-<node>}. */
  void cap(CpuCap cap, String groupPrefix) throws IOException, InterruptedException {
    for (BenchNode node : nodes) {
      cap.apply(groupPrefix + "-" + node.name, node.pid());
    }
  }

  /**
   * Ends every session on both nodes and waits (at most a minute) until neither holds any, so that a step does not
   * start on the abandoned sessions of an earlier, heavier one: left to expire, they kept an overloaded pair slow
   * for the next steps and made the search see a capacity that depended on its own history.
   *
   * @return what was done, for the progress output
   */
  String endAllSessions() throws IOException, InterruptedException {
    StringBuilder said = new StringBuilder();
    for (BenchNode node : nodes) {
      said.append(said.length() == 0 ? "" : ", ").append(node.name).append(": ").append(node.endAllSessions());
    }
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
    while (activeSessions() > 0) {
      if (System.nanoTime() > deadline) {
        return said + "; " + activeSessions() + " sessions still active after 60 s";
      }
      Thread.sleep(500);
    }
    return said.toString();
  }

  private long activeSessions() throws IOException, InterruptedException {
    long active = 0;
    for (BenchNode node : nodes) {
      active += Long.parseLong(node.figures().getOrDefault("manager.activeSessions", "0"));
    }
    return active;
  }

  /** Where the load driver sends its users: both nodes, users dealt round-robin and sticky. */
  List<Target> targets(String page) {
    return nodes.stream().map(node -> new Target("127.0.0.1", node.httpPort, BenchNode.CONTEXT + "/" + page)).toList();
  }

  @Override
  public void close() {
    nodes.forEach(BenchNode::close);
  }

  /** A free loopback port below the kernel's ephemeral range, so no outgoing connection takes it meanwhile. */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(20_000, 32_000);
      try (ServerSocket probe = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free loopback port in 20000..32000 after 200 tries");
  }
}
