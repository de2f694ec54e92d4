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
import io.tandem.core.replicator.ReplicationStats;
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
 * One node of the Tandem variants: the real {@link ReplicationEngine} (MODIFIED_ATTRIBUTE, SYNC or ASYNC, Kryo,
 * otherwise the shipped defaults) over the real {@link GrizzlyTransport} configured as the Tomcat manager configures
 * it (request timeout = ack timeout), with a fixed two-member view. The owner's writers each own one session and
 * replace its one attribute as fast as the engine returns: in SYNC once the buddy acknowledged, in ASYNC once the
 * update is queued. The owner counts the updates the engine accepted (REPLICATED, or QUEUED); the buddy only answers,
 * and counts the updates it applied ({@link TappedTransport#applied()}).
 *
 * <p>On stop the owner's writers end first; then, for at most {@link #DRAIN}, the owner waits until its engine has
 * nothing queued and every message sent was answered, so that the buddy's final count can be held against every
 * update the owner produced ({@code produced} in the summary).
 *
 * <p>Implementation notes: each writer thread owns its session and its handle; the outcome counters are concurrent;
 * the engine is closed by the control thread after the writers stopped.
 */
final class TandemNode implements BenchNode {
  static final NodeId OWNER = new NodeId("a-owner"); // the lower id dials: the owner opens the connection
  static final NodeId BUDDY = new NodeId("b-buddy");
  private static final byte[] SECRET = "tandem-replication-benchmark".getBytes(StandardCharsets.UTF_8);
  private static final Set<String> READ_NOTHING = Set.of();
  static final Duration DRAIN = Duration.ofSeconds(5);

  private final boolean owner;
  private final FlushOutcome accepted;
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
  private volatile boolean drained;

  TandemNode(boolean owner, ReplicationMode mode, int port, int peerPort, int writers, int attributeBytes,
      Duration ackTimeout) throws Exception {
    this.owner = owner;
    this.accepted = mode == ReplicationMode.SYNC ? FlushOutcome.REPLICATED : FlushOutcome.QUEUED;
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
        .mode(mode).ackTimeout(ackTimeout).build();
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
      while (first != accepted) { // the first request sends the session in full; the pair may still be connecting
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("session " + id + " not replicated after 20 s: " + first);
        }
        first = engine.flush(handles[i], READ_NOTHING);
      }
      int writer = i;
      writerThreads[i] = new Thread(() -> write(writer), "tandem-bench-writer-" + (i + 1));
      writerThreads[i].setDaemon(true);
    }
    // ASYNC: the first flushes were only queued; load starts once the buddy holds every session.
    while (engine.sessionsWithoutBackup() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(engine.sessionsWithoutBackup() + " sessions without a backup after 20 s");
      }
      Thread.sleep(10);
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
        if (outcome == accepted) {
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
    return owner ? completed.sum() : transport.applied();
  }

  @Override
  public long requests() {
    return owner ? completed.sum() + failed() : transport.handled();
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
      fields.put("produced", Long.toString(requests()));
      fields.put("drained", Boolean.toString(drained));
      ReplicationStats stats = engine.stats();
      fields.put("engine", "sent:" + (stats.deltasSent() + stats.fullsSent()) + ",fulls:" + stats.fullsSent()
          + ",acks:" + stats.acks() + ",overflows:" + stats.asyncOverflows() + ",ackTimeouts:" + stats.ackTimeouts()
          + ",sendFailures:" + stats.sendFailures() + ",gapResends:" + stats.gapResends());
    } else {
      fields.put("applied", Long.toString(transport.applied()));
    }
    // A JVM that did not run for longer than the pause threshold (an overloaded machine) quarantines its sessions:
    // figures from such a run describe that, not the replication path.
    fields.put("pauses", Long.toString(engine.stats().pausesDetected()));
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
    if (owner) {
      drained = awaitDrained();
    }
    engine.close();
  }

  /** Until nothing is queued and every update sent was answered (or counted as failed), for at most DRAIN. */
  private boolean awaitDrained() throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (true) {
      ReplicationStats s = engine.stats();
      long answered = s.acks() + s.ackTimeouts() + s.sendFailures() + s.refusedByBuddy() + s.gapResends();
      if (s.asyncQueued() == 0 && s.sessionsWithoutBackup() == 0 && answered >= s.deltasSent() + s.fullsSent()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10); // shutdown only
    }
  }
}
