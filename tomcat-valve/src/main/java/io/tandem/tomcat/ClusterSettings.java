package io.tandem.tomcat;

import io.tandem.core.config.Units;
import io.tandem.core.spi.NodeId;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import io.tandem.transport.hazelcast.MemberDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where this node listens and whom it joins, from the {@code <Manager>} attributes: validated once at start, every
 * violation reported at once with the attribute, the value and what is allowed.
 *
 * @param nodeId this node's id in the ring; defaults to the engine's jvmRoute
 * @param discovery how the members are found: the {@code members} list, or Kubernetes (see {@link DiscoverySettings})
 * @param maxQueuedBytesPerPeer outbound bytes queued for one peer before requests to it fail with back-pressure
 * @param handshakeTimeout a connection that has not proven the secret within it is closed
 * @param stalledFrameTimeout an authenticated peer that starts a frame and does not finish it within it is cut off
 * @param maxUnauthenticatedConnections connections in their handshake at once, in total
 * @param maxUnauthenticatedPerAddress connections in their handshake at once, per source IP
 * @param writeLinger how long after a write to a peer a request waits for others to share its write (0ms: never)
 */
record ClusterSettings(
    String clusterName,
    String nodeId,
    String bindAddress,
    int transportPort,
    int membershipPort,
    MemberDiscovery discovery,
    byte[] sharedSecret,
    long maxQueuedBytesPerPeer,
    Duration handshakeTimeout,
    Duration stalledFrameTimeout,
    int maxUnauthenticatedConnections,
    int maxUnauthenticatedPerAddress,
    Duration writeLinger) {

  static final Set<String> ATTRIBUTES =
      Set.of("clusterName", "nodeId", "bindAddress", "transportPort", "membershipPort", "members", "discovery",
          "kubernetesServiceDns", "kubernetesNamespace", "kubernetesServiceName", "sharedSecret",
          "sharedSecretFile", "maxQueuedBytesPerPeer", "handshakeTimeout", "stalledFrameTimeout",
          "maxUnauthenticatedConnections", "maxUnauthenticatedPerAddress", "writeLinger");

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
    MemberDiscovery discovery = DiscoverySettings.parse(attributes, violations);
    byte[] secret = secret(attributes, violations);
    if (clusterName.getBytes(StandardCharsets.UTF_8).length > GrizzlyTransportConfig.MAX_CLUSTER_NAME_BYTES) {
      violations.add("clusterName: '" + clusterName + "' is longer than " + GrizzlyTransportConfig.MAX_CLUSTER_NAME_BYTES + " bytes");
    }
    long maxQueued = size(attributes, "maxQueuedBytesPerPeer", 64L << 20, 64L << 10, 1L << 40, violations);
    Duration handshake = duration(attributes, "handshakeTimeout", GrizzlyTransportConfig.DEFAULT_HANDSHAKE_TIMEOUT,
        Duration.ofMillis(100), Duration.ofMinutes(5), violations);
    Duration stalled = duration(attributes, "stalledFrameTimeout", GrizzlyTransportConfig.DEFAULT_STALLED_FRAME_TIMEOUT,
        Duration.ofMillis(100), Duration.ofMinutes(30), violations);
    int maxUnauthenticated = (int) size(attributes, "maxUnauthenticatedConnections",
        GrizzlyTransportConfig.DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS, 1, 100_000, violations);
    int maxPerAddress = (int) size(attributes, "maxUnauthenticatedPerAddress",
        GrizzlyTransportConfig.DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS, 1, 100_000, violations);
    if (maxPerAddress > maxUnauthenticated) {
      violations.add("maxUnauthenticatedPerAddress: " + maxPerAddress + " must not exceed maxUnauthenticatedConnections (" + maxUnauthenticated + ")");
    }
    Duration linger = duration(attributes, "writeLinger", GrizzlyTransportConfig.DEFAULT_WRITE_LINGER, Duration.ZERO,
        GrizzlyTransportConfig.MAX_WRITE_LINGER, violations);
    return new ClusterSettings(clusterName, nodeId, bind, transportPort, membershipPort, discovery, secret, maxQueued,
        handshake, stalled, maxUnauthenticated, maxPerAddress, linger);
  }

  /**
   * The transport's settings: these attributes plus what the replication settings decide (the ack timeout bounds a
   * request, the largest frame bounds what is read). {@code maxQueuedBytesPerPeer} is raised to {@code
   * maxFrameSize} if set lower, since one frame must always fit.
   */
  GrizzlyTransportConfig transportConfig(NodeId node, Duration ackTimeout, int maxFrameSize, javax.net.ssl.SSLContext tls) {
    GrizzlyTransportConfig defaults = GrizzlyTransportConfig.loopback(clusterName, node, sharedSecret, ackTimeout);
    return new GrizzlyTransportConfig(clusterName, node, bindAddress, transportPort, sharedSecret, ackTimeout,
        defaults.connectTimeout(), maxFrameSize, Math.max(maxQueuedBytesPerPeer, maxFrameSize),
        defaults.reconnectBackoffMin(), defaults.reconnectBackoffMax(), tls, handshakeTimeout, stalledFrameTimeout,
        maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger);
  }

  /** A byte size or count with optional unit (64KiB, 8MiB), between {@code min} and {@code max}. */
  private static long size(Map<String, String> attributes, String name, long fallback, long min, long max, List<String> violations) {
    String value = attributes.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      long parsed = Units.parseSize(value);
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (IllegalArgumentException | ArithmeticException e) {
      // reported below
    }
    violations.add(name + ": '" + value + "' must be a whole number between " + min + " and " + max
        + (min >= 1024 ? " bytes (units KiB, MiB, GiB allowed)" : ""));
    return fallback;
  }

  /** A duration with a unit (500ms, 2s), between {@code min} and {@code max}. */
  private static Duration duration(Map<String, String> attributes, String name, Duration fallback, Duration min, Duration max,
      List<String> violations) {
    String value = attributes.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      Duration parsed = Units.parseDuration(value);
      if (parsed.compareTo(min) >= 0 && parsed.compareTo(max) <= 0) {
        return parsed;
      }
    } catch (IllegalArgumentException | ArithmeticException e) {
      // reported below
    }
    violations.add(name + ": '" + value + "' must be a duration between " + Units.format(min) + " and " + Units.format(max)
        + ", written with a unit such as 500ms or 5s");
    return fallback;
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
        + " membershipPort=" + membershipPort + " " + DiscoverySettings.describe(discovery) + " sharedSecret=****"
        + " maxQueuedBytesPerPeer=" + maxQueuedBytesPerPeer + " handshakeTimeout=" + Units.format(handshakeTimeout)
        + " stalledFrameTimeout=" + Units.format(stalledFrameTimeout) + " maxUnauthenticatedConnections="
        + maxUnauthenticatedConnections + " maxUnauthenticatedPerAddress=" + maxUnauthenticatedPerAddress;
  }

  /**
   * One violation per unknown attribute, each listing the valid ones so an operator can spot the typo. {@code
   * otherAttributes} are those of the replication and TLS settings.
   */
  static List<String> unknownAttributeViolations(Map<String, String> attributes, Set<String> otherAttributes) {
    List<String> unknown = unknown(attributes, otherAttributes);
    if (unknown.isEmpty()) {
      return unknown;
    }
    java.util.TreeSet<String> valid = new java.util.TreeSet<>(ATTRIBUTES);
    valid.addAll(otherAttributes);
    valid.add("replicationFilter");
    return unknown.stream().map(name -> name + ": unknown attribute; valid attributes are " + String.join(", ", valid)).toList();
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
