package io.tandem.tomcat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where this node listens and whom it joins, from the {@code <Manager>} attributes: validated once at start, every
 * violation reported at once with the attribute, the value and what is allowed.
 *
 * @param nodeId this node's id in the ring; defaults to the engine's jvmRoute
 * @param members Hazelcast join list, {@code host:port} of every member's membership port
 */
record ClusterSettings(
    String clusterName,
    String nodeId,
    String bindAddress,
    int transportPort,
    int membershipPort,
    List<String> members,
    byte[] sharedSecret,
    long maxQueuedBytesPerPeer) {

  static final Set<String> ATTRIBUTES =
      Set.of("clusterName", "nodeId", "bindAddress", "transportPort", "membershipPort", "members", "sharedSecret",
          "sharedSecretFile", "maxQueuedBytesPerPeer");

  static ClusterSettings parse(Map<String, String> attributes, String defaultNodeId, List<String> violations) {
    String clusterName = attributes.getOrDefault("clusterName", "tandem");
    String nodeId = attributes.getOrDefault("nodeId", defaultNodeId);
    if (nodeId == null || nodeId.isBlank()) {
      violations.add("nodeId: not set and the Engine has no jvmRoute; set one of them (it must differ on every node)");
      nodeId = "unset";
    }
    String bind = attributes.getOrDefault("bindAddress", "127.0.0.1");
    int transportPort = port(attributes, "transportPort", violations);
    int membershipPort = port(attributes, "membershipPort", violations);
    List<String> members = Arrays.stream(attributes.getOrDefault("members", "").split("[,\\s]+"))
        .map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (members.isEmpty()) {
      violations.add("members: must list the membership address (host:port) of at least one member, e.g. 10.0.0.1:5701,10.0.0.2:5701");
    }
    for (String member : members) {
      if (!member.matches("[^:]+:\\d{1,5}")) {
        violations.add("members: '" + member + "' is not host:port");
      }
    }
    byte[] secret = secret(attributes, violations);
    long maxQueued = 64L << 20;
    if (attributes.containsKey("maxQueuedBytesPerPeer")) {
      try {
        maxQueued = Long.parseLong(attributes.get("maxQueuedBytesPerPeer").trim());
      } catch (NumberFormatException e) {
        violations.add("maxQueuedBytesPerPeer: '" + attributes.get("maxQueuedBytesPerPeer") + "' is not a number of bytes");
      }
    }
    return new ClusterSettings(clusterName, nodeId, bind, transportPort, membershipPort, members, secret, maxQueued);
  }

  private static int port(Map<String, String> attributes, String name, List<String> violations) {
    String value = attributes.get(name);
    if (value == null) {
      violations.add(name + ": required, a TCP port between 1 and 65535");
      return 0;
    }
    try {
      int port = Integer.parseInt(value.trim());
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    violations.add(name + ": '" + value + "' is not a TCP port between 1 and 65535");
    return 0;
  }

  private static byte[] secret(Map<String, String> attributes, List<String> violations) {
    String inline = attributes.get("sharedSecret");
    String file = attributes.get("sharedSecretFile");
    byte[] secret = null;
    if (inline != null && file != null) {
      violations.add("sharedSecret/sharedSecretFile: set only one of them");
    } else if (file != null) {
      try {
        secret = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim().getBytes(StandardCharsets.UTF_8);
      } catch (IOException e) {
        violations.add("sharedSecretFile: cannot read '" + file + "': " + e.getMessage());
      }
    } else if (inline != null) {
      secret = inline.getBytes(StandardCharsets.UTF_8);
    } else {
      violations.add("sharedSecret: required (or sharedSecretFile); every member of the cluster must have the same one");
    }
    if (secret != null && secret.length < 16) {
      violations.add("sharedSecret: must be at least 16 bytes long");
    }
    return secret == null ? new byte[16] : secret;
  }

  @Override
  public String toString() {
    return "cluster=" + clusterName + " node=" + nodeId + " bind=" + bindAddress + " transportPort=" + transportPort
        + " membershipPort=" + membershipPort + " members=" + members + " sharedSecret=****";
  }

  static List<String> unknown(Map<String, String> attributes, Set<String> replicationAttributes) {
    List<String> unknown = new ArrayList<>();
    for (String name : attributes.keySet()) {
      if (!ATTRIBUTES.contains(name) && !replicationAttributes.contains(name)) {
        unknown.add(name);
      }
    }
    return unknown;
  }
}
