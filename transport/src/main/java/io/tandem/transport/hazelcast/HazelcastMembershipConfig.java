package io.tandem.transport.hazelcast;

import io.tandem.core.spi.NodeId;
import io.tandem.transport.hazelcast.MemberDiscovery.Members;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How one node joins the Hazelcast cluster that decides Tandem membership.
 *
 * <p>Members are found by {@link #discovery}: a fixed TCP join list, where every node lists every node (itself
 * included) so that any two of them find each other, or Hazelcast's Kubernetes discovery (DNS lookup of a headless
 * Service, or the Kubernetes API). Never multicast or cloud auto-detection, which are unreliable (or forbidden) in
 * the data centres Tomcat runs in. Failure detection is heartbeat based; Hazelcast counts both values in whole
 * seconds, so the record insists on whole seconds rather than silently truncating. A crashed node whose sockets
 * close is dropped within a second; one that hangs is dropped after about {@link #maxNoHeartbeat}.
 *
 * @param clusterName nodes with different cluster names never join each other
 * @param localNode this node's Tandem id (its jvmRoute), published as a member attribute
 * @param transportAddress where this node's transport listens, published as a member attribute
 * @param bindHost the address Hazelcast binds to and advertises (an IP address or a resolvable host name)
 * @param port the port Hazelcast binds to; no auto-increment, so the join list stays exact (with Kubernetes
 *     discovery every pod uses the same port, which is the port looked-up addresses are joined on)
 * @param discovery how the other members are found
 * @param heartbeatInterval how often members send heartbeats; whole seconds, at least one
 * @param maxNoHeartbeat how long without a heartbeat before a member is dropped; whole seconds, above the interval
 */
public record HazelcastMembershipConfig(
    String clusterName,
    NodeId localNode,
    String transportAddress,
    String bindHost,
    int port,
    MemberDiscovery discovery,
    Duration heartbeatInterval,
    Duration maxNoHeartbeat) {

  public static final String LOOPBACK = "127.0.0.1";
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  /** With a one second heartbeat, a hung member leaves the others' views in 3 to 4 seconds: under the 5 s goal. */
  public static final Duration DEFAULT_MAX_NO_HEARTBEAT = Duration.ofSeconds(3);

  public HazelcastMembershipConfig {
    requireText(clusterName, "clusterName");
    Objects.requireNonNull(localNode, "localNode must not be null");
    requireText(transportAddress, "transportAddress");
    requireText(bindHost, "bindHost");
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be between 1 and 65535, got " + port);
    }
    Objects.requireNonNull(discovery, "discovery must not be null");
    requireWholeSeconds(heartbeatInterval, "heartbeatInterval");
    requireWholeSeconds(maxNoHeartbeat, "maxNoHeartbeat");
    if (maxNoHeartbeat.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException(
          "maxNoHeartbeat must be longer than heartbeatInterval (" + heartbeatInterval + "), got " + maxNoHeartbeat);
    }
  }

  /**
   * A node on this machine's loopback interface that joins the nodes at {@code joinPorts} (which may include its
   * own port), with the default failure detection. Meant for tests and single-host setups.
   */
  public static HazelcastMembershipConfig forLoopback(
      String clusterName, NodeId localNode, String transportAddress, int port, List<Integer> joinPorts) {
    Objects.requireNonNull(joinPorts, "joinPorts must not be null");
    List<String> members = joinPorts.stream().map(p -> LOOPBACK + ":" + p).toList();
    return new HazelcastMembershipConfig(
        clusterName,
        localNode,
        transportAddress,
        LOOPBACK,
        port,
        new Members(members),
        DEFAULT_HEARTBEAT_INTERVAL,
        DEFAULT_MAX_NO_HEARTBEAT);
  }

  /** A node binding {@code bindHost:port} that joins {@code joinMembers}, with the default failure detection. */
  public static HazelcastMembershipConfig of(
      String clusterName,
      NodeId localNode,
      String transportAddress,
      String bindHost,
      int port,
      List<String> joinMembers) {
    return new HazelcastMembershipConfig(
        clusterName,
        localNode,
        transportAddress,
        bindHost,
        port,
        new Members(joinMembers),
        DEFAULT_HEARTBEAT_INTERVAL,
        DEFAULT_MAX_NO_HEARTBEAT);
  }

  /** This config with other failure detection timings. */
  public HazelcastMembershipConfig withFailureDetection(Duration heartbeatInterval, Duration maxNoHeartbeat) {
    return new HazelcastMembershipConfig(
        clusterName, localNode, transportAddress, bindHost, port, discovery, heartbeatInterval, maxNoHeartbeat);
  }

  /** This config with another way of finding the members. */
  public HazelcastMembershipConfig withDiscovery(MemberDiscovery discovery) {
    return new HazelcastMembershipConfig(
        clusterName, localNode, transportAddress, bindHost, port, discovery, heartbeatInterval, maxNoHeartbeat);
  }

  private static void requireText(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, got " + (value == null ? "null" : "''"));
    }
  }

  private static void requireWholeSeconds(Duration value, String field) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.getSeconds() < 1 || value.getNano() != 0) {
      throw new IllegalArgumentException(
          field + " must be a whole number of seconds, at least 1 s (Hazelcast counts seconds), got " + value);
    }
  }
}
