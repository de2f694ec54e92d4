package io.tandem.benchmarks;

import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecKind;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One request of the growing-session workload through the real replication path: the owner's flush (scope rule,
 * serialization), the wire format both ways, and the buddy's apply to its bytes-only backup store. The session
 * holds 20 attributes of 1 KiB; each request replaces one of them. Reports time per request and the bytes a
 * socket would carry (request and ack frames) as the {@code wireBytes} and {@code requests} counters.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ScopeReplication} (after {@code ./mvnw -B package}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ScopeReplicationBenchmark {
  static final int ATTRIBUTES = 20;
  private static final NodeId OWNER = new NodeId("owner");
  private static final NodeId BUDDY = new NodeId("buddy");

  @Param({"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  public ReplicationScope scope;

  @Param({"KRYO", "JDK"})
  public CodecKind codec;

  /** STRING: 1 KiB strings (provably immutable). MAP: 1 KiB maps, which reading marks as changed. */
  @Param({"STRING", "MAP"})
  public String values;

  private final LongAdder wireBytes = new LongAdder();
  private ReplicationEngine owner;
  private ReplicationEngine buddy;
  private GrowingSession session;
  private Object[] pageValues;
  private int request;

  /**
   * Bytes on the wire, reported by JMH next to the time. JMH adds event counters up over the measurement
   * iterations, so it reports two: divide {@code wireBytes} by {@code requests} for bytes per request.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Wire {
    public long wireBytes;
    public long requests;

    @Setup(Level.Iteration)
    public void reset() {
      wireBytes = 0;
      requests = 0;
    }

    void record(long requestBytes) {
      wireBytes += requestBytes;
      requests++;
    }

    double bytesPerRequest() {
      return requests == 0 ? 0 : (double) wireBytes / requests;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    ReplicationConfig config =
        ReplicationConfig.builder()
            .scope(scope)
            .codec(codec)
            .ackTimeout(Duration.ofSeconds(10))
            .maintenanceInterval(Duration.ofHours(1))
            .build();
    MembershipView view = new MembershipView(1, List.of(new Member(OWNER, "loopback:owner"), new Member(BUDDY, "loopback:buddy")));
    var network = LoopbackTransport.network();
    owner = engine(config, new LoopbackTransport(OWNER, network, wireBytes), view);
    buddy = engine(config, new LoopbackTransport(BUDDY, network, new LongAdder()), view);
    pageValues = new Object[ATTRIBUTES * 2];
    for (int i = 0; i < pageValues.length; i++) {
      pageValues[i] = values.equals("MAP") ? GrowingSession.mapValue(i) : GrowingSession.value(i);
    }
    session = new GrowingSession(System.currentTimeMillis());
    owner.sessionCreated("bench", session);
    for (int page = 0; page < ATTRIBUTES; page++) {
      oneRequest(page);
    }
  }

  private static ReplicationEngine engine(ReplicationConfig config, LoopbackTransport transport, MembershipView view) throws Exception {
    ReplicationEngine engine =
        new ReplicationEngine(
            config,
            transport,
            new FixedMembership(transport.localNode(), view),
            AttributeCodecs.create(config.codec(), ClassFilter.defaultsOnly(), config.codecLimits()),
            Clock.systemUTC(),
            ReplicationListener.NONE);
    engine.start();
    return engine;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    owner.close();
    buddy.close();
  }

  /** One page view: replace one attribute, list all of them, flush. */
  FlushOutcome oneRequest(int page) {
    String name = "attribute-" + (page % ATTRIBUTES);
    session.access(System.currentTimeMillis());
    session.put(name, pageValues[page % pageValues.length]);
    owner.attributeChanged("bench", name);
    Set<String> listed = session.attributeNames();
    return owner.flush("bench", listed);
  }

  @Benchmark
  public FlushOutcome request(Wire wire) {
    long before = wireBytes.sum();
    FlushOutcome outcome = oneRequest(++request);
    wire.record(wireBytes.sum() - before);
    return outcome;
  }

  /** For the smoke test: the buddy's copy, deserialized. */
  Map<String, Object> backupAttributes() {
    var codecInstance = AttributeCodecs.create(codec, ClassFilter.defaultsOnly(), ReplicationConfig.builder().build().codecLimits());
    Map<String, Object> out = new java.util.HashMap<>();
    buddy.backupOf("bench").orElseThrow().attributes()
        .forEach((k, v) -> out.put(k, codecInstance.decode(v, getClass().getClassLoader())));
    return out;
  }

  long wireBytesSoFar() {
    return wireBytes.sum();
  }
}
