package io.tandem.benchmarks.replication;

import io.tandem.benchmarks.FixedMembership;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.OwnedSession;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.transport.grizzly.GrizzlyTransport;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * One node of the Tandem variant: the real {@link ReplicationEngine} (MODIFIED_ATTRIBUTE, SYNC, Kryo, otherwise the
 * shipped defaults) over the real {@link GrizzlyTransport} configured as the Tomcat manager configures it (request
 * timeout = ack timeout), with a fixed two-member view. The owner's writers each own one session and replace its one
 * attribute as fast as the engine acknowledges; the buddy only answers.
 *
 * <p>Implementation notes: each writer thread owns its session and its handle; the outcome counters are concurrent;
 * the engine is closed by the control thread after the writers stopped.
 */
final class TandemNode implements BenchNode {
  static final NodeId OWNER = new NodeId("a-owner"); // the lower id dials: the owner opens the connection
  static final NodeId BUDDY = new NodeId("b-buddy");
  private static final byte[] SECRET = "tandem-replication-benchmark".getBytes(StandardCharsets.UTF_8);
  private static final Set<String> READ_NOTHING = Set.of();

  private final boolean owner;
  private final int writers;
  private final int attributeBytes;
  private final TappedTransport transport;
  private final ReplicationEngine engine;
  private final LongAdder completed = new LongAdder();
  private final Map<FlushOutcome, LongAdder> otherOutcomes = new EnumMap<>(FlushOutcome.class);
  private final OwnedSession[] handles;
  private final WriterSession[] sessions;
  private final Thread[] writerThreads;
  private volatile boolean running = true;
  private volatile Throwable failure;

  TandemNode(boolean owner, int port, int peerPort, int writers, int attributeBytes, Duration ackTimeout) throws Exception {
    this.owner = owner;
    this.writers = owner ? writers : 0;
    this.attributeBytes = attributeBytes;
    for (FlushOutcome outcome : FlushOutcome.values()) {
      otherOutcomes.put(outcome, new LongAdder());
    }
    NodeId local = owner ? OWNER : BUDDY;
    MembershipView view = new MembershipView(1, List.of(
        new Member(OWNER, "127.0.0.1:" + (owner ? port : peerPort)),
        new Member(BUDDY, "127.0.0.1:" + (owner ? peerPort : port))));
    GrizzlyTransportConfig defaults = GrizzlyTransportConfig.loopback("tandem-replbench", local, SECRET, ackTimeout);
    GrizzlyTransportConfig config = new GrizzlyTransportConfig(defaults.clusterName(), local, "127.0.0.1", port, SECRET,
        ackTimeout, defaults.connectTimeout(), defaults.maxFrameSize(), defaults.maxQueuedBytesPerPeer(),
        defaults.reconnectBackoffMin(), defaults.reconnectBackoffMax(), null);
    this.transport = new TappedTransport(new GrizzlyTransport(config));
    ReplicationConfig replication = ReplicationConfig.builder().scope(ReplicationScope.MODIFIED_ATTRIBUTE)
        .mode(ReplicationMode.SYNC).ackTimeout(ackTimeout).build();
    this.engine = new ReplicationEngine(replication, transport, new FixedMembership(local, view),
        AttributeCodecs.create(replication.codec(), ClassFilter.defaultsOnly(), replication.codecLimits()),
        Clock.systemUTC(), ReplicationListener.NONE);
    this.handles = new OwnedSession[this.writers];
    this.sessions = new WriterSession[this.writers];
    this.writerThreads = new Thread[this.writers];
    engine.start();
  }

  @Override
  public Map<String, String> awaitReady() throws InterruptedException {
    if (!owner) {
      return Map.of();
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    // Startup only: the view is delivered on the membership's thread.
    while (engine.buddy().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the owner has no buddy after 20 s");
      }
      Thread.sleep(10);
    }
    for (int i = 0; i < writers; i++) {
      sessions[i] = new WriterSession(attributeBytes, i, System.currentTimeMillis());
      String id = String.format(Locale.ROOT, "%032X", 0xB0B0_0000L + i); // as long as Tomcat's session ids
      handles[i] = engine.sessionCreated(id, sessions[i]);
      FlushOutcome first = FlushOutcome.NOTHING;
      while (first != FlushOutcome.REPLICATED) { // the first request sends the session in full; the pair may still be connecting
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("session " + id + " not replicated after 20 s: " + first);
        }
        first = engine.flush(handles[i], READ_NOTHING);
      }
      int writer = i;
      writerThreads[i] = new Thread(() -> write(writer), "tandem-bench-writer-" + (i + 1));
      writerThreads[i].setDaemon(true);
    }
    return Map.of("writers", Integer.toString(writers));
  }

  @Override
  public void startLoad() {
    for (Thread t : writerThreads) {
      t.start();
    }
  }

  private void write(int writer) {
    WriterSession session = sessions[writer];
    OwnedSession handle = handles[writer];
    try {
      while (running) {
        session.update(System.currentTimeMillis());
        engine.attributeChanged(handle, WriterSession.ATTRIBUTE);
        FlushOutcome outcome = engine.flush(handle, READ_NOTHING);
        if (outcome == FlushOutcome.REPLICATED) {
          completed.increment();
        } else {
          otherOutcomes.get(outcome).increment();
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  @Override
  public long updates() {
    return owner ? completed.sum() : transport.handled();
  }

  @Override
  public long failed() {
    return otherOutcomes.values().stream().mapToLong(LongAdder::sum).sum();
  }

  @Override
  public Throwable failure() {
    return failure;
  }

  @Override
  public Map<String, String> summary() {
    Map<String, String> fields = new LinkedHashMap<>();
    if (owner) {
      fields.put("requestFrameBytes", Integer.toString(transport.requestFrameBytes()));
      fields.put("ackFrameBytes", Integer.toString(transport.ackFrameBytes()));
      String outcomes = otherOutcomes.entrySet().stream().filter(e -> e.getValue().sum() > 0)
          .map(e -> e.getKey() + ":" + e.getValue().sum()).collect(Collectors.joining(","));
      fields.put("otherOutcomes", outcomes.isEmpty() ? "none" : outcomes);
    }
    return fields;
  }

  @Override
  public void stop() throws InterruptedException {
    running = false;
    for (Thread t : writerThreads) {
      if (t != null && t.isAlive()) {
        t.join(5000);
      }
    }
    engine.close();
  }
}
