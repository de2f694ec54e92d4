package io.tandem.tomcat;

import io.tandem.core.config.Units;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a node's runtime for one cluster is built from: the cluster settings, the largest frame its transport reads, and
 * its TLS. Every context that shares the runtime must name the same; {@link #differences} says, attribute by attribute,
 * where a context's settings differ from those the runtime runs with (secrets and passwords masked).
 *
 * @param cluster the cluster attributes, parsed
 * @param maxFrameSize the transport's largest frame ({@code maxFrameSize})
 * @param tlsAttributes the TLS attributes as written (empty without TLS)
 * @param tls the TLS context built from them, or null
 * @param ackTimeout the transport's default wait; each context's own requests wait its own {@code ackTimeout}, so
 *     contexts may differ in it
 */
record RuntimeSettings(ClusterSettings cluster, int maxFrameSize, Map<String, String> tlsAttributes,
    javax.net.ssl.SSLContext tls, java.time.Duration ackTimeout) {
  /** Compared as digests and never shown. */
  private static final Set<String> SECRETS = Set.of("sharedSecret", "tlsKeystorePassword", "tlsTruststorePassword");

  RuntimeSettings {
    tlsAttributes = Map.copyOf(tlsAttributes);
  }

  /** Each setting a shared runtime must agree on, by attribute name, as compared (secrets as digests). */
  Map<String, String> compared() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("clusterName", cluster.clusterName());
    values.put("nodeId", cluster.nodeId());
    values.put("bindAddress", cluster.bindAddress());
    values.put("transportPort", Integer.toString(cluster.transportPort()));
    values.put("membershipPort", Integer.toString(cluster.membershipPort()));
    values.put("discovery", DiscoverySettings.describe(cluster.discovery()));
    values.put("sharedSecret", digest(cluster.sharedSecret()));
    values.put("maxQueuedBytesPerPeer", Long.toString(cluster.maxQueuedBytesPerPeer()));
    values.put("handshakeTimeout", Units.format(cluster.handshakeTimeout()));
    values.put("stalledFrameTimeout", Units.format(cluster.stalledFrameTimeout()));
    values.put("maxUnauthenticatedConnections", Integer.toString(cluster.maxUnauthenticatedConnections()));
    values.put("maxUnauthenticatedPerAddress", Integer.toString(cluster.maxUnauthenticatedPerAddress()));
    values.put("writeLinger", Units.format(cluster.writeLinger()));
    values.put("maxFrameSize", Integer.toString(maxFrameSize));
    for (String name : new java.util.TreeSet<>(TlsSettings.ATTRIBUTES)) {
      String value = tlsAttributes.get(name);
      values.put(name, value == null ? "(not set)" : SECRETS.contains(name) ? digest(value.getBytes(StandardCharsets.UTF_8)) : value);
    }
    return values;
  }

  /**
   * One line per setting in which this context's settings differ from {@code running}'s, naming the attribute and both
   * values ({@code sharedSecret} and the TLS passwords only as "differs", masked); empty when they agree.
   */
  List<String> differences(RuntimeSettings running) {
    Map<String, String> mine = compared();
    Map<String, String> theirs = running.compared();
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, String> setting : mine.entrySet()) {
      String name = setting.getKey();
      String other = theirs.get(name);
      if (!setting.getValue().equals(other)) {
        differences.add(SECRETS.contains(name)
            ? name + ": differs from the running runtime's (values masked)"
            : name + ": '" + setting.getValue() + "' here, '" + other + "' in the running runtime");
      }
    }
    return differences;
  }

  private static String digest(byte[] secret) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
