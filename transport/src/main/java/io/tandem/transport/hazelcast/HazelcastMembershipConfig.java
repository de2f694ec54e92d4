package io.tandem.transport.hazelcast;

import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of one node's Hazelcast membership, validated at construction; every violation is reported at once.
 *
 * @param clusterName Hazelcast cluster name: members of other clusters never join this one
 * @param transportAddress the {@code host:port} of this node's Tandem transport, advertised to the others
 * @param bindHost the interface Hazelcast listens on
 * @param port Hazelcast's port (no auto-increment: the join list names exact ports)
 * @param joinMembers {@code host:port} of the members to join through (TCP-IP join; this node may be among them)
 * @param heartbeatInterval how often members send heartbeats
 * @param maxNoHeartbeat how long without a heartbeat before a member is declared dead
 */
public record HazelcastMembershipConfig(
    String clusterName,
    NodeId localNode,
    String transportAddress,
    String bindHost,
    int port,
    List<String> joinMembers,
    Duration heartbeatInterval,
    Duration maxNoHeartbeat) {

  public HazelcastMembershipConfig {
    List<String> violations = new ArrayList<>();
    if (clusterName == null || clusterName.isBlank()) {
      violations.add("clusterName: must not be blank");
    }
    Objects.requireNonNull(localNode, "localNode");
    if (transportAddress == null || transportAddress.isBlank()) {
      violations.add("transportAddress: must not be blank");
    }
    if (bindHost == null || bindHost.isBlank()) {
      violations.add("bindHost: must not be blank");
    }
    if (port < 1 || port > 65535) {
      violations.add("port: " + port + " must be between 1 and 65535");
    }
    joinMembers = List.copyOf(joinMembers);
    if (joinMembers.isEmpty()) {
      violations.add("joinMembers: must name at least one member (host:port)");
    }
    for (String member : joinMembers) {
      if (!member.matches(".+:\\d{1,5}")) {
        violations.add("joinMembers: '" + member + "' must be host:port");
      }
    }
    if (heartbeatInterval == null || heartbeatInterval.toSeconds() < 1) {
      violations.add("heartbeatInterval: " + heartbeatInterval + " must be at least 1s");
    }
    if (maxNoHeartbeat == null || heartbeatInterval == null || maxNoHeartbeat.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
      violations.add("maxNoHeartbeat: " + maxNoHeartbeat + " must be at least twice heartbeatInterval");
    }
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("invalid Hazelcast membership configuration: " + String.join("; ", violations));
    }
  }

  /** Loopback, heartbeats every second and a dead member declared after three: it leaves the view within 5 s. */
  public static HazelcastMembershipConfig forLoopback(
      String clusterName, NodeId node, String transportAddress, int port, List<String> joinMembers) {
    return new HazelcastMembershipConfig(
        clusterName, node, transportAddress, "127.0.0.1", port, joinMembers, Duration.ofSeconds(1), Duration.ofSeconds(3));
  }
}
