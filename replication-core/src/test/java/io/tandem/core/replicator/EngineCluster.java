package io.tandem.core.replicator;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.EngineRuntime;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Transport;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.testing.InMemoryNetwork;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.testing.ManualScheduler;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.MessageCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/**
 * Several engines on an in-memory network and membership, sharing one manual clock. Every message crosses the
 * real wire codec, so what the engines exchange is exactly what a socket would carry.
 */
final class EngineCluster implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofMillis(400);

  final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  final InMemoryNetwork network = new InMemoryNetwork();
  final InMemoryCluster cluster = new InMemoryCluster();
  final ReplicationConfig config;
  /** The engines' ticker and schedulers when the cluster runs in virtual time; null on the JVM's clock and threads. */
  private final ManualScheduler virtual;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  /** How far (ms) {@link #freeze} moved each node's ticker (real time; pauses and deadlines are measured on it). */
  private final Map<String, java.util.concurrent.atomic.AtomicLong> monotonic = new ConcurrentHashMap<>();
  /** Each node's index of owned sessions, which counts the lookups by id made through it. */
  private final Map<String, CountingIndex> indexes = new ConcurrentHashMap<>();
  /** What runs, on the reading thread, each time a node's engine reads its ticker (see {@link #onTickerRead}). */
  private final Map<String, Runnable> tickerReads = new ConcurrentHashMap<>();

  EngineCluster(ReplicationConfig config, String... nodeIds) throws Exception {
    this(config, null, nodeIds);
  }

  /**
   * @param virtual every engine's ticker and schedulers: its periodic work and timeouts run only when the test moves
   *     {@code virtual}; null for the JVM's clock and threads. The wall clock is {@link #clock} either way
   */
  EngineCluster(ReplicationConfig config, ManualScheduler virtual, String... nodeIds) throws Exception {
    this.config = config;
    this.virtual = virtual;
    network.setWireHook(this::throughTheCodec);
    for (String id : nodeIds) {
      start(id);
    }
    if (nodeIds.length > 1) {
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> nodes.values().stream().allMatch(n -> n.engine.buddy().isPresent()));
    }
  }

  Node start(String id) throws Exception {
    return start(id, 0);
  }

  /**
   * The node's process dies and a new one starts under the same id and address before any failure detector noticed:
   * the others' next view lists the new run in its place (another incarnation), never the node missing.
   */
  Node restartInPlace(String id) throws Exception {
    NodeId nodeId = new NodeId(id);
    Node former = nodes.get(id);
    network.crash(nodeId);
    Node next = start(id, former.runs + 1);
    former.engine.close(); // its threads; its membership was replaced already, so no view shows the node missing
    return next;
  }

  private Node start(String id, int run) throws Exception {
    NodeId nodeId = new NodeId(id);
    AttributeCodec codec = AttributeCodecs.create(config.codec(), ClassFilter.of(config.allowedClasses()), config.codecLimits());
    RecordingListener listener = new RecordingListener();
    var transport = network.transport(nodeId, TIMEOUT);
    var membership = cluster.join(nodeId, transport.localAddress(), run);
    java.util.concurrent.atomic.AtomicLong frozen = monotonic.computeIfAbsent(id, k -> new java.util.concurrent.atomic.AtomicLong());
    CountingIndex index = new CountingIndex();
    indexes.put(id, index);
    // The JVM's own ticker, moved on by freeze(): every reader in the engine sees the pause, as in a stopped JVM.
    EngineRuntime runtime = virtual != null ? new EngineRuntime(virtual.ticker(), clock, virtual)
        : new EngineRuntime(() -> {
          tickerReads.getOrDefault(id, NOTHING).run();
          return System.nanoTime() + frozen.get() * 1_000_000;
        }, clock, Scheduler.Factory.system());
    ReplicationEngine engine = new ReplicationEngine(config, transport, membership, codec, runtime, listener, index);
    engine.start();
    Node node = new Node(engine, codec, listener, transport);
    node.runs = run;
    nodes.put(id, node);
    return node;
  }

  /**
   * While {@code losing} says so, every release ({@code Invalidate RELEASED}) of session {@code id} is lost on the wire;
   * everything else crosses the codec as before.
   */
  void loseReleasesOf(String id, java.util.function.BooleanSupplier losing) {
    network.setWireHook(message -> {
      if (losing.getAsBoolean() && message instanceof io.tandem.core.wire.Message.Invalidate release
          && release.sessionId().equals(id) && release.reason() == io.tandem.core.wire.Message.InvalidateReason.RELEASED) {
        throw new IllegalStateException("the release is lost");
      }
      return throughTheCodec(message);
    });
  }

  /**
   * While {@code held} says so, re-protection batches ({@code BulkTransfer} of backups) fail on the wire, as if they had
   * not arrived yet; everything else crosses the codec as before.
   */
  void holdBackReprotection(java.util.function.BooleanSupplier held) {
    network.setWireHook(message -> {
      if (held.getAsBoolean() && message instanceof io.tandem.core.wire.Message.BulkTransfer bulk
          && bulk.purpose() == io.tandem.core.wire.Message.BulkTransfer.Purpose.BACKUP) {
        throw new IllegalStateException("re-protection held back by the test");
      }
      return throughTheCodec(message);
    });
  }

  /**
   * While {@code slow} says so, every message of {@code kind} takes {@code delay} on the wire (the delivering thread
   * sleeps); everything crosses the codec as before.
   *
   * @return how many messages were slowed down so far
   */
  java.util.concurrent.atomic.AtomicInteger slowDown(Class<? extends io.tandem.core.wire.Message> kind,
      java.util.function.BooleanSupplier slow, Duration delay) {
    java.util.concurrent.atomic.AtomicInteger slowed = new java.util.concurrent.atomic.AtomicInteger();
    network.setWireHook(message -> {
      if (slow.getAsBoolean() && kind.isInstance(message)) {
        slowed.incrementAndGet();
        try {
          Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return throughTheCodec(message);
    });
    return slowed;
  }

  /**
   * Runs {@code before} with each message on the thread that delivers it, before it crosses the wire (through the
   * codec, as before): a test acts between a message's sending and its arrival.
   */
  void beforeEachDelivery(java.util.function.Consumer<io.tandem.core.wire.Message> before) {
    network.setWireHook(message -> {
      before.accept(message);
      return throughTheCodec(message);
    });
  }

  /** {@code message} as the wire carries it: encoded into a frame and decoded again, as a socket would. */
  io.tandem.core.wire.Message throughTheCodec(io.tandem.core.wire.Message message) {
    return MessageCodec.decodeFrame(MessageCodec.encode(new Envelope(1, false, message)), config.maxFrameSize()).message();
  }

  Node node(String id) {
    return nodes.get(id);
  }

  /** How many times node {@code id}'s engine looked an owned session up by id so far. */
  long lookups(String id) {
    return indexes.get(id).lookups.sum();
  }

  private static final Runnable NOTHING = () -> { };

  /**
   * Runs {@code hook} on the reading thread each time node {@code id}'s engine reads its ticker (on the JVM's clock
   * only): a test that must land an event between two steps of one request uses the reads as its points of
   * interleaving. The hook sees every thread's reads, and must tell its own apart.
   */
  void onTickerRead(String id, Runnable hook) {
    if (virtual != null) {
      throw new UnsupportedOperationException("in virtual time, the ManualTicker is shared by every engine");
    }
    tickerReads.put(id, hook);
  }

  /**
   * Where the migration tests start: n1 creates {@code id} and writes {@code seq=5}, acknowledged by its buddy n2,
   * which holds the copy.
   */
  void ownedByN1WithItsCopyOnN2(String id) {
    Node n1 = node("n1");
    n1.create(id);
    org.assertj.core.api.Assertions.assertThat(n1.request(id, (s, reads) -> s.setAttribute("seq", 5)))
        .isEqualTo(FlushOutcome.REPLICATED);
    org.assertj.core.api.Assertions.assertThat(node("n2").engine.backupOf(id)).as("n1's buddy is n2").isPresent();
  }

  /**
   * Where the three-node tests of n3's sessions start: n3 creates {@code id} and writes {@code seq=1}, acknowledged by
   * its buddy n1 (the ring's order makes n1 n3's buddy), which holds the copy.
   */
  void ownedByN3WithItsCopyOnN1(String id) {
    Node n3 = node("n3");
    org.assertj.core.api.Assertions.assertThat(n3.engine.buddy()).as("the ring makes n1 n3's buddy")
        .contains(new io.tandem.core.spi.NodeId("n1"));
    n3.create(id);
    org.assertj.core.api.Assertions.assertThat(n3.request(id, (s, reads) -> s.setAttribute("seq", 1)))
        .isEqualTo(FlushOutcome.REPLICATED);
    org.assertj.core.api.Assertions.assertThat(node("n1").engine.backupOf(id)).as("n1 holds n3's copy").isPresent();
  }

  /** The node's JVM did not run for {@code pause} (as under SIGSTOP): its monotonic clock jumps. */
  void freeze(String id, Duration pause) {
    if (virtual != null) {
      throw new UnsupportedOperationException("in virtual time, move the ManualTicker (every engine shares it)");
    }
    monotonic.get(id).addAndGet(pause.toMillis());
  }

  /** The node stops at once: no goodbye, its peers see it vanish from the view. */
  void crash(String id) {
    NodeId nodeId = new NodeId(id);
    network.crash(nodeId);
    cluster.crash(nodeId);
  }

  /**
   * The node's process is killed on a host that stays up: its peers' transports see its connections close and a
   * redial refused at once, while the view still lists it (until {@link #crash}, or the test, drops it).
   */
  void kill(String id) {
    network.kill(new NodeId(id));
  }

  @Override
  public void close() {
    nodes.values().forEach(n -> n.engine.close());
    network.close();
    cluster.close();
  }

  final class Node {
    final ReplicationEngine engine;
    final AttributeCodec codec;
    final RecordingListener listener;
    /** The node's own transport, to send what its engine would (a test plays a race the engine rarely loses). */
    final Transport transport;
    final Map<String, TestSession> sessions = new ConcurrentHashMap<>();
    /** Which run of its node this is (see {@link #restartInPlace}); set once, as it starts. */
    int runs;

    Node(ReplicationEngine engine, AttributeCodec codec, RecordingListener listener, Transport transport) {
      this.engine = engine;
      this.codec = codec;
      this.listener = listener;
      this.transport = transport;
    }

    TestSession create(String id) {
      TestSession session = new TestSession(engine, id, SessionMetadata.created(clock.millis(), 1800));
      sessions.put(id, session);
      session.bind(engine.sessionCreated(id, session));
      return session;
    }

    /** One request: access, run the work, flush. Returns the flush outcome. */
    FlushOutcome request(String id, BiConsumer<TestSession, Set<String>> work) {
      TestSession session = sessions.get(id);
      session.access(clock.millis());
      Set<String> reads = new HashSet<>();
      work.accept(session, reads);
      return engine.flush(session.handle(), reads);
    }

    /** The attributes of this node's backup of {@code id}, deserialized for comparison. */
    Optional<Map<String, Object>> backup(String id) {
      return engine.backupOf(id).map(this::decode);
    }

    Map<String, Object> decode(SessionSnapshot snapshot) {
      Map<String, Object> values = new HashMap<>();
      for (Map.Entry<String, Blob> e : snapshot.attributes().entrySet()) {
        values.put(e.getKey(), codec.decode(e.getValue(), getClass().getClassLoader()));
      }
      return values;
    }
  }

  /** The engine's index of owned sessions, counting lookups by id (what the owner's request path must not make). */
  static final class CountingIndex extends ConcurrentHashMap<String, OwnedSession> {
    private static final long serialVersionUID = 1L;
    final transient java.util.concurrent.atomic.LongAdder lookups = new java.util.concurrent.atomic.LongAdder();

    /** Runs on the adding thread just before a session is added (see {@link #putIfAbsent}); a test's hook. */
    transient volatile java.util.function.Consumer<String> beforeAdd = id -> { };

    @Override
    public OwnedSession get(Object key) {
      lookups.increment();
      return super.get(key);
    }

    /** How the engine adds an owned session: {@link #beforeAdd} runs first, a point a test can land a race on. */
    @Override
    public OwnedSession putIfAbsent(String key, OwnedSession value) {
      beforeAdd.accept(key);
      return super.putIfAbsent(key, value);
    }
  }

  /** Node {@code id}'s index of owned sessions (its {@link CountingIndex#beforeAdd} hook). */
  CountingIndex index(String id) {
    return indexes.get(id);
  }

  static final class RecordingListener implements ReplicationListener {
    final List<String> unsetMutations = new CopyOnWriteArrayList<>();
    final List<String> fenced = new CopyOnWriteArrayList<>();
    final List<String> notReplicable = new CopyOnWriteArrayList<>();
    final List<SessionTooLarge> tooLarge = new CopyOnWriteArrayList<>();

    @Override
    public void sessionTooLarge(SessionTooLarge finding) {
      tooLarge.add(finding);
    }

    @Override
    public void attributeNotReplicable(String sessionId, String attribute, io.tandem.core.codec.CodecException cause) {
      notReplicable.add(sessionId + "/" + attribute + ": " + cause.getMessage());
    }

    @Override
    public void attributeChangedWithoutSet(String sessionId, String attribute) {
      unsetMutations.add(sessionId + "/" + attribute);
    }

    @Override
    public void sessionFenced(String sessionId, String reason) {
      fenced.add(sessionId);
    }
  }
}
