package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.node.NodeRuntime;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.ContextNotDeployedException;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Transport;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.testing.InMemoryNetwork;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two applications per node on one node runtime (one transport, one membership member per node), each with its own
 * engine on a context-scoped view of both; every message crosses the real wire codec. The engines are the production
 * ones, unchanged: what keeps two applications apart is the runtime.
 */
class SharedNodeRuntimeTest {
  private static final Duration TIMEOUT = Duration.ofMillis(400);
  private final ReplicationConfig config = ReplicationConfig.builder().ackTimeout(TIMEOUT).build();
  private final InMemoryNetwork network = new InMemoryNetwork();
  private final InMemoryCluster cluster = new InMemoryCluster();
  private final Map<String, NodeRuntime> runtimes = new LinkedHashMap<>();
  private final Map<String, Map<String, ReplicationEngine>> engines = new LinkedHashMap<>();
  private final Map<String, TestSession> sessions = new HashMap<>();
  private final AttributeCodec codec =
      AttributeCodecs.create(config.codec(), ClassFilter.of(config.allowedClasses()), config.codecLimits());

  @BeforeEach
  void throughTheCodec() {
    network.setWireHook(message ->
        MessageCodec.decodeFrame(MessageCodec.encode(new Envelope(1, false, message)), config.maxFrameSize()).message());
  }

  @AfterEach
  void close() {
    engines.values().forEach(byContext -> byContext.values().forEach(ReplicationEngine::close));
    runtimes.values().forEach(NodeRuntime::close);
    network.close();
    cluster.close();
  }

  @Test
  void twoApplications_sameSessionIdInBoth_eachBackupHoldsOnlyItsOwnApplicationsValue() throws Exception {
    start("n1", "/a", "/b");
    start("n2", "/a", "/b");
    awaitBuddies("n1", "/a", "/b");

    assertThat(create("n1", "/a", "s1", "x", "written in a")).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(create("n1", "/b", "s1", "x", "written in b")).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(backup("n2", "/a", "s1")).containsExactly(Map.entry("x", "written in a"));
    assertThat(backup("n2", "/b", "s1")).containsExactly(Map.entry("x", "written in b"));
  }

  @Test
  void applicationTheBuddyDoesNotRun_isNeverAcknowledged_andTheBuddyIsNotInItsView() throws Exception {
    start("n1", "/a", "/only-here");
    start("n2", "/a");
    awaitBuddies("n1", "/a");

    assertThat(engine("n1", "/only-here").members()).containsExactly(new NodeId("n1"));
    assertThat(create("n1", "/only-here", "s1", "x", "1")).as("alone in the application's view, never REPLICATED")
        .isEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(engine("n1", "/only-here").sessionsWithoutBackup()).isEqualTo(1);

    // Sent anyway (as by a member whose view was late), the write is refused by type, not stored and not dropped.
    Transport scoped = runtimes.get("n1").transportFor("/only-here", TIMEOUT);
    assertThatThrownBy(() -> scoped.request(new NodeId("n2"), new Message.FullSession(
        new SessionSnapshot("s1", 1, 1, SessionMetadata.created(0, 1800), Map.of()))).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(ContextNotDeployedException.class).hasMessageContaining("runs no context [/only-here]");
    assertThat(runtimes.get("n2").refusedNotDeployed()).isEqualTo(1);
  }

  @Test
  void requestNamingNoContext_isAnsweredUnsupported_andCounted() throws Exception {
    start("n1", "/a");
    start("n2", "/a");
    awaitBuddies("n1", "/a");
    Transport bare = network.transport(new NodeId("n3"), TIMEOUT);
    bare.start((from, request) -> java.util.concurrent.CompletableFuture.completedFuture(new Message.Ack(0, 0)));

    Message answer = bare.request(new NodeId("n2"), new Message.Locate("s1")).get(5, TimeUnit.SECONDS);

    assertThat(answer).isInstanceOfSatisfying(Message.Nack.class,
        nack -> assertThat(nack.reason()).isEqualTo(Message.Nack.Reason.UNSUPPORTED));
    assertThat(runtimes.get("n2").refusedWithoutContext()).isEqualTo(1);
    bare.close();
  }

  @Test
  void undeployOfOneApplication_leavesTheRuntimeToTheOther_andTheApplicationsViewDropsTheNode() throws Exception {
    start("n1", "/a", "/b");
    start("n2", "/a", "/b");
    awaitBuddies("n1", "/a", "/b");
    assertThat(create("n1", "/b", "sb", "x", "b")).isEqualTo(FlushOutcome.REPLICATED);

    stop("n2", "/b", true);

    await().atMost(Duration.ofSeconds(10)).until(() -> engine("n1", "/b").members().equals(List.of(new NodeId("n1"))));
    assertThat(create("n1", "/a", "sa", "x", "a")).as("the other application still replicates through the runtime")
        .isEqualTo(FlushOutcome.REPLICATED);
    assertThat(backup("n2", "/a", "sa")).containsExactly(Map.entry("x", "a"));
    assertThat(request("n1", "/b", "sb", (s, reads) -> s.setAttribute("x", "b2"))).isEqualTo(FlushOutcome.NO_BUDDY);
  }

  @Test
  void reloadOfAnApplication_keepsItsSessions_handedToTheBuddyAndBroughtBackOnTheFirstRequest() throws Exception {
    start("n1", "/a", "/b");
    start("n2", "/a", "/b");
    awaitBuddies("n1", "/a", "/b");
    assertThat(create("n1", "/b", "kept", "cart", "book,pen")).isEqualTo(FlushOutcome.REPLICATED);

    stop("n1", "/b", true); // Tomcat's reload: the context stops, then starts again on the same runtime
    await().atMost(Duration.ofSeconds(10)).until(() -> engine("n2", "/b").owns("kept"));
    ReplicationEngine reloaded = startContext("n1", "/b");
    await().atMost(Duration.ofSeconds(10)).until(() -> reloaded.members().size() == 2);

    Acquisition acquired = reloaded.acquire("kept");

    assertThat(acquired.snapshot()).as("the session the reload handed over, brought back (%s; n2 owns it: %s, members %s)",
        acquired.unavailable(), engine("n2", "/b").owns("kept"), engine("n2", "/b").members()).isPresent();
    assertThat(codec.decode(acquired.snapshot().get().attributes().get("cart"), getClass().getClassLoader())).isEqualTo("book,pen");
    assertThat(engine("n2", "/a").members()).as("the other application never left").hasSize(2);
  }

  @Test
  void secondEngineForARunningContext_isRefusedNamingIt() throws Exception {
    start("n1", "/a");
    ReplicationEngine twin = new ReplicationEngine(config, runtimes.get("n1").transportFor("/a", TIMEOUT),
        runtimes.get("n1").membershipFor("/a"), codec, Clock.systemUTC(), new EngineCluster.RecordingListener());

    assertThatThrownBy(twin::start).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("context [/a] is already running on node n1");
    assertThat(create("n1", "/a", "s", "x", "1")).isEqualTo(FlushOutcome.NO_BUDDY);
  }

  // ---- a node, its applications, their sessions --------------------------------------------------------------------

  private void start(String node, String... contexts) throws Exception {
    NodeId id = new NodeId(node);
    var transport = network.transport(id, TIMEOUT);
    NodeRuntime runtime = new NodeRuntime(transport, cluster.join(id, transport.localAddress()),
        Scheduler.singleThread("tandem-contexts-" + node), node.hashCode(), Duration.ofSeconds(5));
    runtime.start();
    runtimes.put(node, runtime);
    for (String context : contexts) {
      startContext(node, context);
    }
  }

  private ReplicationEngine startContext(String node, String context) throws Exception {
    NodeRuntime runtime = runtimes.get(node);
    ReplicationEngine engine = new ReplicationEngine(config, runtime.transportFor(context, TIMEOUT),
        runtime.membershipFor(context), codec, Clock.systemUTC(), new EngineCluster.RecordingListener());
    engine.start();
    engines.computeIfAbsent(node, n -> new LinkedHashMap<>()).put(context, engine);
    return engine;
  }

  private void stop(String node, String context, boolean handOff) {
    ReplicationEngine engine = engines.get(node).remove(context);
    if (handOff) {
      engine.handOff(Duration.ofSeconds(5));
    }
    engine.close();
  }

  private ReplicationEngine engine(String node, String context) {
    return engines.get(node).get(context);
  }

  private void awaitBuddies(String node, String... contexts) {
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      for (String context : contexts) {
        if (engine(node, context).buddy().isEmpty()) {
          return false;
        }
      }
      return true;
    });
  }

  private FlushOutcome create(String node, String context, String id, String name, Object value) {
    ReplicationEngine engine = engine(node, context);
    TestSession session = new TestSession(engine, id, SessionMetadata.created(System.currentTimeMillis(), 1800));
    sessions.put(node + context + id, session);
    session.bind(engine.sessionCreated(id, session));
    return request(node, context, id, (s, reads) -> s.setAttribute(name, value));
  }

  private FlushOutcome request(String node, String context, String id, BiConsumer<TestSession, Set<String>> work) {
    TestSession session = sessions.get(node + context + id);
    Set<String> reads = new HashSet<>();
    work.accept(session, reads);
    return engine(node, context).flush(session.handle(), reads);
  }

  private Map<String, Object> backup(String node, String context, String id) {
    Optional<SessionSnapshot> copy = engine(node, context).backupOf(id);
    assertThat(copy).as("%s's backup of %s in %s", node, id, context).isPresent();
    Map<String, Object> values = new HashMap<>();
    copy.get().attributes().forEach((name, bytes) -> values.put(name, codec.decode(bytes, getClass().getClassLoader())));
    return values;
  }
}
