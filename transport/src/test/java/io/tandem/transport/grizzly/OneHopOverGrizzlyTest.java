package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.replicator.Acquisition;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three engines over real Grizzly sockets (n1 → n2 → n3 → n1), each transport tapped to record every request its
 * engine sends: a session whose id's route names its holder is taken over with one request, and a random session
 * id, once this node remembers it is held nowhere, costs no message to any node, as the taps and the receiving
 * transports' own counters agree.
 */
class OneHopOverGrizzlyTest {
  private static final byte[] SECRET = "one-hop-over-grizzly-secret".getBytes(StandardCharsets.UTF_8);
  private static final Duration SETTLE = Duration.ofSeconds(1);
  private final InMemoryCluster cluster = new InMemoryCluster();
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Map<String, ReplicationEngine> engines = new LinkedHashMap<>();
  private final Map<String, GrizzlyTransport> transports = new LinkedHashMap<>();
  /** Every request an engine sent: "from→to TYPE". */
  private final List<String> sent = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    engines.values().forEach(ReplicationEngine::close);
    cluster.close();
  }

  private void start(String... ids) throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().ackTimeout(Duration.ofSeconds(2)).settleTimeout(SETTLE)
        .maintenanceInterval(Duration.ofHours(1)).build();
    AttributeCodec codec = AttributeCodecs.create(config.codec(), ClassFilter.defaultsOnly(), config.codecLimits());
    for (String id : ids) {
      NodeId node = new NodeId(id);
      int port = io.tandem.core.testing.FreePorts.loopback();
      GrizzlyTransportConfig base = GrizzlyTransportConfig.loopback("one-hop", node, SECRET, Duration.ofSeconds(2));
      GrizzlyTransport transport = new GrizzlyTransport(new GrizzlyTransportConfig("one-hop", node, "127.0.0.1", port,
          SECRET, base.requestTimeout(), base.connectTimeout(), base.maxFrameSize(), base.maxQueuedBytesPerPeer(),
          base.reconnectBackoffMin(), base.reconnectBackoffMax(), null));
      transports.put(id, transport);
      ReplicationEngine engine = new ReplicationEngine(config, tapped(transport), cluster.join(node, "127.0.0.1:" + port),
          codec, clock, ReplicationListener.NONE);
      engine.start();
      engines.put(id, engine);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> engines.values().stream()
        .allMatch(e -> e.buddy().isPresent() && e.members().size() == ids.length));
  }

  /** The transport, recording each request before it goes; a proxy, so it follows the interface as it grows. */
  private Transport tapped(GrizzlyTransport transport) {
    String from = transport.localNode().value();
    return (Transport) Proxy.newProxyInstance(Transport.class.getClassLoader(), new Class<?>[] {Transport.class},
        (proxy, method, args) -> {
          if (method.getName().equals("request") && args.length >= 2 && args[1] instanceof Message message) {
            sent.add(from + "→" + args[0] + " " + message.type());
          }
          try {
            return method.invoke(transport, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /** The view has not changed for longer than the settle timeout. */
  private void settle() {
    clock.advance(SETTLE.plusMillis(1));
  }

  private long served(String node) {
    return transports.get(node).stats().requestsServed();
  }

  private static SessionSource session(Map<String, Object> attributes) {
    return new SessionSource() {
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
  }

  @Test
  void aSessionWhoseRouteNamesItsHolder_isTakenOverWithOneRequest() throws Exception {
    start("n1", "n2", "n3");
    engines.get("n1").sessionCreated("s1", session(new ConcurrentHashMap<>(Map.of("user", "alice"))));
    assertThat(engines.get("n1").flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    long servedByN2 = served("n2");
    sent.clear();

    Acquisition acquired = engines.get("n3").acquire("s1", "n1");

    assertThat(acquired.snapshot()).isPresent();
    assertThat(acquired.snapshot().orElseThrow().attributes()).containsKey("user");
    List<String> lookups = new ArrayList<>(sent);
    lookups.removeIf(s -> !s.endsWith(" MIGRATE") && !s.endsWith(" LOCATE"));
    assertThat(lookups).containsExactly("n3→n1 MIGRATE");
    assertThat(engines.get("n3").owns("s1")).isTrue();
    assertThat(engines.get("n1").owns("s1")).isFalse();
    // n2 (the former buddy) is asked nothing; it is only released, twice: by n3 as it installs the session (so that n1
    // dying before its handover ends leaves one owner), and by n1 once n3 holds it (docs/protocol.md 6.5).
    assertThat(sent).filteredOn(s -> s.startsWith("n3→n2")).containsExactly("n3→n2 INVALIDATE");
    await().atMost(Duration.ofSeconds(10)).until(() -> engines.get("n2").backupOf("s1").isEmpty());
    await().atMost(Duration.ofSeconds(10)).until(() -> served("n2") - servedByN2 == 2);
  }

  @Test
  void aRandomSessionId_onceRemembered_causesNoMessageToAnyOtherNode() throws Exception {
    start("n1", "n2", "n3");
    settle();
    ReplicationEngine n3 = engines.get("n3");
    assertThat(n3.acquire("random-4f9c2a", "n1")).isEqualTo(Acquisition.NOWHERE);
    assertThat(sent).containsExactly("n3→n1 MIGRATE", "n3→n2 MIGRATE"); // the route's node and its buddy: no broadcast
    assertThat(n3.unknownSessionsRemembered()).isEqualTo(1);
    sent.clear();
    long servedByN1 = served("n1");
    long servedByN2 = served("n2");
    long sentByN3 = transports.get("n3").stats().requestsSent();

    for (int i = 0; i < 200; i++) {
      assertThat(n3.acquire("random-4f9c2a", i % 2 == 0 ? "n1" : "n2")).isEqualTo(Acquisition.NOWHERE);
    }

    assertThat(sent).isEmpty();
    assertThat(transports.get("n3").stats().requestsSent()).isEqualTo(sentByN3);
    assertThat(served("n1")).isEqualTo(servedByN1);
    assertThat(served("n2")).isEqualTo(servedByN2);
  }
}
