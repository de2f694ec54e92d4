package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.ClassNotAllowedException;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two engines over real Grizzly sockets (membership in memory): replication works end to end, and a peer that
 * ships a class outside the allow-list gets it stored only as bytes and refused, naming the class, the moment
 * anyone tries to deserialize it; the node goes on serving.
 */
class EngineOverGrizzlyTest {
  private static final byte[] SECRET = "engine-over-grizzly-secret".getBytes(StandardCharsets.UTF_8);
  private final InMemoryCluster cluster = new InMemoryCluster();
  private final List<ReplicationEngine> engines = new ArrayList<>();

  /** Not on any allow-list. */
  static final class Smuggled implements Serializable {
    private static final long serialVersionUID = 1L;
    String payload = "gadget";
  }

  @AfterEach
  void close() {
    engines.forEach(ReplicationEngine::close);
    cluster.close();
  }

  private ReplicationEngine start(String id, ReplicationConfig config, AttributeCodec codec) throws Exception {
    NodeId node = new NodeId(id);
    int port = io.tandem.core.testing.FreePorts.loopback();
    GrizzlyTransportConfig base = GrizzlyTransportConfig.loopback("engine", node, SECRET, Duration.ofSeconds(2));
    GrizzlyTransport transport = new GrizzlyTransport(new GrizzlyTransportConfig("engine", node, "127.0.0.1", port, SECRET,
        base.requestTimeout(), base.connectTimeout(), base.maxFrameSize(), base.maxQueuedBytesPerPeer(),
        base.reconnectBackoffMin(), base.reconnectBackoffMax(), null));
    ReplicationEngine engine = new ReplicationEngine(
        config, transport, cluster.join(node, "127.0.0.1:" + port), codec, Clock.systemUTC(), ReplicationListener.NONE);
    engine.start();
    engines.add(engine);
    return engine;
  }

  @Test
  void replicatesOverSockets_andAClassOutsideTheAllowListIsRefusedNamingIt() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().ackTimeout(Duration.ofSeconds(2)).build();
    AttributeCodec strict = AttributeCodecs.create(config.codec(), ClassFilter.defaultsOnly(), config.codecLimits());
    ReplicationEngine owner = start("a-owner", config, strict);
    ReplicationEngine buddy = start("b-buddy", config, strict);
    await().atMost(Duration.ofSeconds(10)).until(() -> owner.buddy().isPresent() && buddy.buddy().isPresent());

    Map<String, Object> attributes = new ConcurrentHashMap<>(Map.of("user", "alice"));
    SessionSource source = new SessionSource() {
      @Override
      public SessionMetadata metadata() {
        return SessionMetadata.created(1, 1800);
      }

      @Override
      public Set<String> attributeNames() {
        return Set.copyOf(attributes.keySet());
      }

      @Override
      public Object attribute(String name) {
        return attributes.get(name);
      }
    };
    owner.sessionCreated("s1", source);
    assertThat(owner.flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(buddy.backupOf("s1")).isPresent();

    // A member whose codec allows everything ships an attribute of a class the buddy does not allow.
    AttributeCodec permissive = AttributeCodecs.create(config.codec(), ClassFilter.of(List.of("*")), config.codecLimits());
    SessionSnapshot smuggling = new SessionSnapshot("s2", 1, 1, SessionMetadata.created(1, 1800), Map.of("x", permissive.encode(new Smuggled())));
    try (RawPeer rogue = new RawPeer(transportAddress(buddy), new NodeId("c-rogue"))) {
      // One that holds the secret but is in no view: its copy would be an orphan at once, and is not stored.
      rogue.authenticate("engine", SECRET);
      rogue.send(new Envelope(1, false, new Message.FullSession(smuggling)));
      assertThat(rogue.read().message()).isInstanceOfSatisfying(Message.Nack.class, nack -> assertThat(nack.detail())
          .contains("c-rogue is not a member of b-buddy's view"));
    }
    assertThat(buddy.backupOf("s2")).isEmpty();
    try (RawPeer member = new RawPeer(transportAddress(buddy), new NodeId("a-owner"))) {
      // The member itself, with a codec that allows everything.
      member.authenticate("engine", SECRET);
      member.send(new Envelope(1, false, new Message.FullSession(smuggling)));
      // Stored exactly as sent: acknowledged as part of a range (of one), not with a reply of its own.
      assertThat(member.read()).isEqualTo(new Envelope(1, true, new Message.AckRange(1)));
    }

    SessionSnapshot stored = buddy.backupOf("s2").orElseThrow();
    assertThatThrownBy(() -> strict.decode(stored.attributes().get("x"), getClass().getClassLoader()))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Smuggled.class.getName());

    attributes.put("user", "alice-2");
    owner.attributeChanged("s1", "user");
    assertThat(owner.flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
  }

  private String transportAddress(ReplicationEngine engine) {
    return cluster.currentView().member(engine.localNode()).orElseThrow().transportAddress();
  }
}
