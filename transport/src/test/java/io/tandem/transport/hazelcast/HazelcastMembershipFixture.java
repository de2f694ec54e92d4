package io.tandem.transport.hazelcast;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.MembershipFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Members of one fresh Hazelcast cluster on loopback: a cluster name of its own, so that tests never join each
 * other's members, and one free port per node id (see {@link #freeLoopbackPort}), every member being told the
 * ports of all of them.
 *
 * <p>Implementation notes: used from the test thread only; not thread-safe.
 */
final class HazelcastMembershipFixture extends MembershipFixture {
  private static final int FIRST_CANDIDATE_PORT = 20_000;
  private static final int DEFAULT_EPHEMERAL_RANGE_START = 32_768;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private final String clusterName = "tandem-test-" + UUID.randomUUID();
  private final Map<NodeId, Integer> ports = new LinkedHashMap<>();

  /** A fixture whose members may be any of {@code nodes}. */
  HazelcastMembershipFixture(List<NodeId> nodes) {
    for (NodeId node : nodes) {
      ports.put(node, freeLoopbackPort());
    }
  }

  /** The configuration the fixture gives {@code id}. */
  HazelcastMembershipConfig config(NodeId id, String transportAddress) {
    Integer port = ports.get(id);
    if (port == null) {
      throw new IllegalArgumentException("fixture has no port for " + id + "; it knows " + ports.keySet());
    }
    return HazelcastMembershipConfig.forLoopback(
        clusterName, id, transportAddress, port, new ArrayList<>(ports.values()));
  }

  @Override
  protected Membership createMembership(NodeId id, String transportAddress) {
    return new HazelcastMembership(config(id, transportAddress));
  }

  /** Terminates the Hazelcast member without a goodbye, as a crash would. */
  @Override
  public void kill(NodeId id) {
    ((HazelcastMembership) membership(id)).crash();
  }

  /**
   * A port nobody listens on, chosen below the kernel's ephemeral range. A port from {@code new ServerSocket(0)}
   * is not good enough here: it comes from the ephemeral range, so between the probe and Hazelcast's bind an
   * outgoing connection (Hazelcast's join attempts, or even a loopback self-connect to that very port) can take it,
   * and "Port is already in use" fails the test. Outside the range only a listener can take it.
   */
  private int freeLoopbackPort() {
    int below = ephemeralRangeStart();
    if (below <= FIRST_CANDIDATE_PORT + 1_000) {
      return probe(0);
    }
    for (int attempt = 0; attempt < 100; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(FIRST_CANDIDATE_PORT, below);
      if (!ports.containsValue(candidate) && probe(candidate) == candidate) {
        return candidate;
      }
    }
    throw new IllegalStateException("no free loopback port in " + FIRST_CANDIDATE_PORT + ".." + below);
  }

  /** Binds {@code port} (0: any) on loopback and returns the bound port, or -1 if it is taken. */
  private static int probe(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      if (port == 0) {
        throw new UncheckedIOException(e);
      }
      return -1;
    }
  }

  private static int ephemeralRangeStart() {
    try {
      // Not Files.readString: on JDK 17 it returned only the first character of this procfs file.
      String range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_RANGE_START;
    }
  }
}
