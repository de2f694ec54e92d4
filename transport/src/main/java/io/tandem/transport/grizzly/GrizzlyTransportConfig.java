package io.tandem.transport.grizzly;

import io.tandem.core.config.Units;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.ProtocolVersions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Settings of one node's Grizzly transport, validated at construction; every violation is reported at once.
 *
 * @param clusterName peers of another cluster are refused at the handshake
 * @param bindHost the interface to listen on; the advertised address is {@code bindHost:port}
 * @param port the port to listen on; 0 picks a free one
 * @param sharedSecret the secret every member proves it knows (HMAC-SHA256 challenge); at least 16 bytes
 * @param requestTimeout how long a request waits for its reply
 * @param connectTimeout how long a request waits for a connection to its peer to be established
 * @param maxFrameSize largest frame accepted on read, length prefix included
 * @param maxQueuedBytesPerPeer outbound bytes not yet written to one peer's socket before requests to it are
 *     refused with back-pressure: a peer that stops reading can never make this node's memory grow past it
 * @param reconnectBackoffMin first delay before redialing a lost peer; doubles up to {@code reconnectBackoffMax}
 * @param tls null for plain TCP, or the TLS context both ends use (mutual authentication)
 * @param handshakeTimeout how long a connection may take from its first byte to a proven secret before it is
 *     closed; until then its frames are capped at {@link #HANDSHAKE_FRAME_LIMIT} bytes
 * @param stalledFrameTimeout how long an authenticated peer may take to finish a frame it has started before its
 *     connection is closed (a half-open or trickling peer); an idle connection between frames is never closed
 * @param maxUnauthenticatedConnections accepted connections still in their handshake, in total, beyond which new
 *     ones are closed at once
 * @param maxUnauthenticatedPerAddress the same, per source IP address
 * @param writeLinger how long after the last write to a peer a request made while another awaits its reply may be
 *     held, to go with the others held in one write after the next read (zero: never held). See {@link OutboundQueue}
 * @param protocolVersions the protocol versions this node offers in its hello: {@link ProtocolVersions#spoken()}
 *     unless a test sets another range ({@link #withProtocolVersions}); not a setting of Tandem's
 */
public record GrizzlyTransportConfig(
    String clusterName,
    NodeId localNode,
    String bindHost,
    int port,
    byte[] sharedSecret,
    Duration requestTimeout,
    Duration connectTimeout,
    int maxFrameSize,
    long maxQueuedBytesPerPeer,
    Duration reconnectBackoffMin,
    Duration reconnectBackoffMax,
    SSLContext tls,
    Duration handshakeTimeout,
    Duration stalledFrameTimeout,
    int maxUnauthenticatedConnections,
    int maxUnauthenticatedPerAddress,
    Duration writeLinger,
    ProtocolVersions protocolVersions) {

  /**
   * The largest frame read from a peer that has not yet proven the secret: a handshake is under 400 bytes (the
   * cluster name is limited to {@value #MAX_CLUSTER_NAME_BYTES} bytes and node ids to 64 characters).
   */
  public static final int HANDSHAKE_FRAME_LIMIT = 1024;

  public static final int MAX_CLUSTER_NAME_BYTES = 200;
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_STALLED_FRAME_TIMEOUT = Duration.ofSeconds(10);
  public static final int DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS = 64;
  public static final int DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS = 8;
  public static final Duration DEFAULT_WRITE_LINGER = Duration.ofMillis(2);
  public static final Duration MAX_WRITE_LINGER = Duration.ofMillis(100);

  /** The settings before the hostile-network limits existed, with those limits at their defaults. */
  public GrizzlyTransportConfig(String clusterName, NodeId localNode, String bindHost, int port, byte[] sharedSecret,
      Duration requestTimeout, Duration connectTimeout, int maxFrameSize, long maxQueuedBytesPerPeer,
      Duration reconnectBackoffMin, Duration reconnectBackoffMax, SSLContext tls) {
    this(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout, maxFrameSize,
        maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, DEFAULT_HANDSHAKE_TIMEOUT,
        DEFAULT_STALLED_FRAME_TIMEOUT, DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS, DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS);
  }

  /** Every setting, offering the protocol versions this build speaks ({@link ProtocolVersions#spoken()}). */
  public GrizzlyTransportConfig(String clusterName, NodeId localNode, String bindHost, int port, byte[] sharedSecret,
      Duration requestTimeout, Duration connectTimeout, int maxFrameSize, long maxQueuedBytesPerPeer,
      Duration reconnectBackoffMin, Duration reconnectBackoffMax, SSLContext tls, Duration handshakeTimeout,
      Duration stalledFrameTimeout, int maxUnauthenticatedConnections, int maxUnauthenticatedPerAddress, Duration writeLinger) {
    this(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout, maxFrameSize,
        maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout, stalledFrameTimeout,
        maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger, ProtocolVersions.spoken());
  }

  /** The settings before the write linger existed, with the linger at its default. */
  public GrizzlyTransportConfig(String clusterName, NodeId localNode, String bindHost, int port, byte[] sharedSecret,
      Duration requestTimeout, Duration connectTimeout, int maxFrameSize, long maxQueuedBytesPerPeer,
      Duration reconnectBackoffMin, Duration reconnectBackoffMax, SSLContext tls, Duration handshakeTimeout,
      Duration stalledFrameTimeout, int maxUnauthenticatedConnections, int maxUnauthenticatedPerAddress) {
    this(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout, maxFrameSize,
        maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout, stalledFrameTimeout,
        maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, DEFAULT_WRITE_LINGER);
  }

  public GrizzlyTransportConfig {
    List<String> violations = new ArrayList<>();
    if (clusterName == null || clusterName.isBlank()) {
      violations.add("clusterName: must not be blank");
    } else if (clusterName.getBytes(StandardCharsets.UTF_8).length > MAX_CLUSTER_NAME_BYTES) {
      violations.add("clusterName: must be at most " + MAX_CLUSTER_NAME_BYTES + " bytes (UTF-8), so a handshake fits in "
          + HANDSHAKE_FRAME_LIMIT + " bytes");
    }
    Objects.requireNonNull(localNode, "localNode");
    if (bindHost == null || bindHost.isBlank()) {
      violations.add("bindHost: must not be blank");
    }
    if (port < 0 || port > 65535) {
      violations.add("port: " + port + " must be between 0 and 65535");
    }
    if (sharedSecret == null || sharedSecret.length < 16) {
      violations.add("sharedSecret: must be at least 16 bytes");
    }
    positive(violations, "requestTimeout", requestTimeout);
    positive(violations, "connectTimeout", connectTimeout);
    positive(violations, "reconnectBackoffMin", reconnectBackoffMin);
    positive(violations, "reconnectBackoffMax", reconnectBackoffMax);
    positive(violations, "handshakeTimeout", handshakeTimeout);
    positive(violations, "stalledFrameTimeout", stalledFrameTimeout);
    if (reconnectBackoffMin != null && reconnectBackoffMax != null && reconnectBackoffMax.compareTo(reconnectBackoffMin) < 0) {
      violations.add("reconnectBackoffMax: " + Units.format(reconnectBackoffMax) + " must be at least reconnectBackoffMin ("
          + Units.format(reconnectBackoffMin) + ")");
    }
    if (maxUnauthenticatedConnections < 1) {
      violations.add("maxUnauthenticatedConnections: " + maxUnauthenticatedConnections + " must be at least 1");
    }
    if (maxUnauthenticatedPerAddress < 1 || maxUnauthenticatedPerAddress > Math.max(1, maxUnauthenticatedConnections)) {
      violations.add("maxUnauthenticatedPerAddress: " + maxUnauthenticatedPerAddress
          + " must be between 1 and maxUnauthenticatedConnections (" + maxUnauthenticatedConnections + ")");
    }
    if (writeLinger == null || writeLinger.isNegative() || writeLinger.compareTo(MAX_WRITE_LINGER) > 0) {
      violations.add("writeLinger: " + Units.format(writeLinger) + " must be between 0ms and " + Units.format(MAX_WRITE_LINGER));
    }
    Objects.requireNonNull(protocolVersions, "protocolVersions");
    if (maxFrameSize < 64 * 1024) {
      violations.add("maxFrameSize: " + maxFrameSize + " must be at least 64KiB");
    }
    if (maxFrameSize < 0 || maxQueuedBytesPerPeer < maxFrameSize) {
      violations.add("maxQueuedBytesPerPeer: " + maxQueuedBytesPerPeer + " must be at least maxFrameSize (" + maxFrameSize + ")");
    }
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("invalid Grizzly transport configuration: " + String.join("; ", violations));
    }
    sharedSecret = sharedSecret.clone();
  }

  private static void positive(List<String> violations, String name, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      violations.add(name + ": " + Units.format(value) + " must be a positive duration such as 500ms or 2s");
    }
  }

  /** Plain TCP on loopback with an ephemeral port and the defaults a test or a local cluster wants. */
  public static GrizzlyTransportConfig loopback(String clusterName, NodeId node, byte[] secret, Duration requestTimeout) {
    return new GrizzlyTransportConfig(clusterName, node, "127.0.0.1", 0, secret, requestTimeout, Duration.ofSeconds(2),
        32 << 20, 64L << 20, Duration.ofMillis(50), Duration.ofSeconds(2), null);
  }

  public GrizzlyTransportConfig withTls(SSLContext context) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, context, handshakeTimeout,
        stalledFrameTimeout, maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger, protocolVersions);
  }

  public GrizzlyTransportConfig withSecret(byte[] secret) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, secret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout,
        stalledFrameTimeout, maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger, protocolVersions);
  }

  public GrizzlyTransportConfig withLimits(int maxFrame, long maxQueued) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrame, maxQueued, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout, stalledFrameTimeout,
        maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger, protocolVersions);
  }

  /** The limits on peers that have not authenticated, and on authenticated peers that stall mid-frame. */
  public GrizzlyTransportConfig withHostilePeerLimits(Duration handshake, Duration stalledFrame, int maxUnauthenticated,
      int maxUnauthenticatedPerIp) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshake, stalledFrame,
        maxUnauthenticated, maxUnauthenticatedPerIp, writeLinger, protocolVersions);
  }

  /** The same settings with another {@code writeLinger}. */
  public GrizzlyTransportConfig withWriteLinger(Duration linger) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout,
        stalledFrameTimeout, maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, linger, protocolVersions);
  }

  /**
   * The same settings offering {@code versions} in the hello instead of what this build speaks: for tests that play
   * a node of another version (the same code claiming another range), never for a real node.
   */
  public GrizzlyTransportConfig withProtocolVersions(ProtocolVersions versions) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls, handshakeTimeout,
        stalledFrameTimeout, maxUnauthenticatedConnections, maxUnauthenticatedPerAddress, writeLinger, versions);
  }

  @Override
  public byte[] sharedSecret() {
    return sharedSecret.clone();
  }

  @Override
  public String toString() {
    return "GrizzlyTransportConfig[cluster=" + clusterName + ", node=" + localNode.value() + ", bind=" + bindHost + ":" + port
        + ", secret=****, requestTimeout=" + Units.format(requestTimeout) + ", connectTimeout=" + Units.format(connectTimeout)
        + ", maxFrameSize=" + maxFrameSize + ", maxQueuedBytesPerPeer=" + maxQueuedBytesPerPeer
        + ", handshakeTimeout=" + Units.format(handshakeTimeout) + ", stalledFrameTimeout=" + Units.format(stalledFrameTimeout)
        + ", maxUnauthenticatedConnections=" + maxUnauthenticatedConnections
        + ", maxUnauthenticatedPerAddress=" + maxUnauthenticatedPerAddress + ", writeLinger=" + Units.format(writeLinger) + ", protocolVersions=" + protocolVersions
        + ", tls=" + (tls != null) + "]";
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }
}
