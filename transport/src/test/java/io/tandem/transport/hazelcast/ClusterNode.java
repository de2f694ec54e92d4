package io.tandem.transport.hazelcast;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.replicator.ReplicationStats;
import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.NodeId;
import io.tandem.transport.grizzly.GrizzlyTransport;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Tandem node as a test runs it: a Grizzly transport, Hazelcast membership and the replication engine, with
 * sessions kept in maps the way a container would keep them. Used in-process by {@code ThreeNodeClusterIT} and as
 * a separate JVM through {@link ClusterNodeMain}.
 */
final class ClusterNode implements AutoCloseable {
  static final byte[] SECRET = "integration-test-shared-secret".getBytes(StandardCharsets.UTF_8);

  final NodeId id;
  final ReplicationEngine engine;
  final GrizzlyTransport transport;
  final HazelcastMembership membership;
  private final AttributeCodec codec;
  private final Map<String, MapSession> sessions = new ConcurrentHashMap<>();

  ClusterNode(String cluster, String nodeId, int transportPort, int hazelcastPort, List<String> joinMembers, ReplicationConfig config) {
    this.id = new NodeId(nodeId);
    GrizzlyTransportConfig base = GrizzlyTransportConfig.loopback(cluster, id, SECRET, config.ackTimeout());
    this.transport = new GrizzlyTransport(new GrizzlyTransportConfig(base.clusterName(), id, "127.0.0.1", transportPort,
        SECRET, base.requestTimeout(), base.connectTimeout(), base.maxFrameSize(), base.maxQueuedBytesPerPeer(),
        base.reconnectBackoffMin(), base.reconnectBackoffMax(), null));
    this.membership = new HazelcastMembership(HazelcastMembershipConfig.of(
        cluster, id, "127.0.0.1:" + transportPort, "127.0.0.1", hazelcastPort, joinMembers));
    this.codec = AttributeCodecs.create(config.codec(), ClassFilter.of(config.allowedClasses()), config.codecLimits());
    this.engine = new ReplicationEngine(config, transport, membership, codec, Clock.systemUTC(), ReplicationListener.NONE);
  }

  static int freePort() {
    return io.tandem.core.testing.FreePorts.loopback();
  }

  static ReplicationConfig config() {
    return ReplicationConfig.builder()
        .ackTimeout(Duration.ofSeconds(2))
        .stateTransferBytesPerSecond(64L << 20)
        .maintenanceInterval(Duration.ofMillis(500))
        .build();
  }

  void start() throws Exception {
    engine.start();
  }

  /** A request that sets one attribute on a session owned here (created on first use). */
  FlushOutcome set(String sessionId, String name, String value) {
    MapSession session = sessions.computeIfAbsent(sessionId, sid -> {
      MapSession created = new MapSession(System.currentTimeMillis());
      engine.sessionCreated(sid, created);
      return created;
    });
    session.attributes.put(name, value);
    session.touch();
    engine.attributeChanged(sessionId, name);
    return engine.flush(sessionId, Set.of());
  }

  /** The attributes of the backup this node holds of {@code sessionId}, decoded. */
  Optional<Map<String, Object>> backup(String sessionId) {
    return engine.backupOf(sessionId).map(this::decode);
  }

  /** The attributes of a session this node owns without having served it yet (adopted from a dead owner). */
  Optional<Map<String, Object>> adopted(String sessionId) {
    if (sessions.containsKey(sessionId) || !engine.owns(sessionId)) {
      return Optional.empty();
    }
    return engine.promote(sessionId).map(this::decode);
  }

  boolean owns(String sessionId) {
    return engine.owns(sessionId);
  }

  ReplicationStats stats() {
    return engine.stats();
  }

  private Map<String, Object> decode(SessionSnapshot snapshot) {
    Map<String, Object> values = new TreeMap<>();
    for (Map.Entry<String, Blob> e : snapshot.attributes().entrySet()) {
      values.put(e.getKey(), codec.decode(e.getValue(), ClusterNode.class.getClassLoader()));
    }
    return values;
  }

  /** Stops at once, as a crash would: no goodbye to Hazelcast, sockets simply close. */
  void crash() {
    membership.crash();
    transport.close();
    engine.close();
  }

  @Override
  public void close() {
    engine.close();
  }

  private static final class MapSession implements SessionSource {
    final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private volatile SessionMetadata metadata;

    MapSession(long now) {
      metadata = SessionMetadata.created(now, 1800);
    }

    void touch() {
      metadata = metadata.withLastAccessedTime(System.currentTimeMillis());
    }

    @Override
    public SessionMetadata metadata() {
      return metadata;
    }

    @Override
    public Set<String> attributeNames() {
      return Set.copyOf(attributes.keySet());
    }

    @Override
    public Object attribute(String name) {
      return attributes.get(name);
    }
  }
}
