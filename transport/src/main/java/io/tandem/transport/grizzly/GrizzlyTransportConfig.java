package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
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
    SSLContext tls) {

  public GrizzlyTransportConfig {
    List<String> violations = new ArrayList<>();
    if (clusterName == null || clusterName.isBlank()) {
      violations.add("clusterName: must not be blank");
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
    if (maxFrameSize < 64 * 1024) {
      violations.add("maxFrameSize: " + maxFrameSize + " must be at least 64KiB");
    }
    if (maxQueuedBytesPerPeer < maxFrameSize) {
      violations.add("maxQueuedBytesPerPeer: " + maxQueuedBytesPerPeer + " must be at least maxFrameSize (" + maxFrameSize + ")");
    }
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("invalid Grizzly transport configuration: " + String.join("; ", violations));
    }
    sharedSecret = sharedSecret.clone();
  }

  private static void positive(List<String> violations, String name, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      violations.add(name + ": " + value + " must be positive");
    }
  }

  /** Plain TCP on loopback with an ephemeral port and the defaults a test or a local cluster wants. */
  public static GrizzlyTransportConfig loopback(String clusterName, NodeId node, byte[] secret, Duration requestTimeout) {
    return new GrizzlyTransportConfig(clusterName, node, "127.0.0.1", 0, secret, requestTimeout, Duration.ofSeconds(2),
        32 << 20, 64L << 20, Duration.ofMillis(50), Duration.ofSeconds(2), null);
  }

  public GrizzlyTransportConfig withTls(SSLContext context) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, context);
  }

  public GrizzlyTransportConfig withSecret(byte[] secret) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, secret, requestTimeout, connectTimeout,
        maxFrameSize, maxQueuedBytesPerPeer, reconnectBackoffMin, reconnectBackoffMax, tls);
  }

  public GrizzlyTransportConfig withLimits(int maxFrame, long maxQueued) {
    return new GrizzlyTransportConfig(clusterName, localNode, bindHost, port, sharedSecret, requestTimeout, connectTimeout,
        maxFrame, maxQueued, reconnectBackoffMin, reconnectBackoffMax, tls);
  }

  @Override
  public byte[] sharedSecret() {
    return sharedSecret.clone();
  }

  @Override
  public String toString() {
    return "GrizzlyTransportConfig[cluster=" + clusterName + ", node=" + localNode.value() + ", bind=" + bindHost + ":" + port
        + ", secret=****, requestTimeout=" + requestTimeout.toMillis() + "ms, maxFrameSize=" + maxFrameSize
        + ", maxQueuedBytesPerPeer=" + maxQueuedBytesPerPeer + ", tls=" + (tls != null) + "]";
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
