package io.tandem.core.simulation;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.replicator.Acquisition;
import io.tandem.core.replicator.Admission;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.OwnedSession;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.EngineRuntime;
import io.tandem.core.spi.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * One simulated Tomcat: the real {@link ReplicationEngine} on the simulated transport, membership, clock and threads,
 * under a container that uses it as {@code TandemManager} and {@code TandemValve} do — admission, takeover of a
 * session held elsewhere, attach, the request's changes, the flush, login id changes and invalidation — and answers
 * as the valve answers: 200 only for a confirmed outcome in SYNC, 503 for what may or may not have happened.
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton (a request runs on an actor).
 */
final class SimNode {
  final String name;
  private final Simulation sim;
  /** Told of an answer "alone" given while this node's view listed others (the contract forbids it). */
  private final Checker checker;
  private final ReplicationConfig config;
  private final AttributeCodec codec;
  private final Map<String, Session> sessions = new LinkedHashMap<>();
  private ReplicationEngine engine;
  private SimNetwork.SimTransport transport;
  private SimMembership.Node membership;
  /** How far this node's wall clock is from the simulation's (a clock step moves it). */
  private long clockOffsetMillis;
  private boolean stopping;

  SimNode(String name, Simulation sim, ReplicationConfig config, Checker checker) {
    this.checker = checker;
    this.name = name;
    this.sim = sim;
    this.config = config;
    this.codec = AttributeCodecs.create(config.codec(), ClassFilter.of(config.allowedClasses()), config.codecLimits());
  }

  /** Starts a new process of this node: a new engine with nothing in it, joining the cluster. */
  void start(SimNetwork network, SimMembership service) {
    sim.born(name);
    stopping = false;
    sessions.clear();
    transport = network.transport(name, config.ackTimeout());
    membership = service.member(name);
    Ticker ticker = sim::nanos;
    InstantSource wallClock = () -> Instant.ofEpochMilli(Simulation.EPOCH_MILLIS + sim.millis() + clockOffsetMillis);
    EngineRuntime runtime = new EngineRuntime(ticker, wallClock, new SimSchedulers(sim, name), sim.actors().waiter());
    engine = new ReplicationEngine(config, transport, membership, codec, runtime, new Listener());
    try {
      engine.start();
    } catch (Exception e) {
      throw new IllegalStateException("node " + name + " did not start", e);
    }
    network.announce(name);
    sim.trace().add(name + " started (incarnation " + sim.incarnation(name) + ")");
  }

  /**
   * Whether the process runs and takes requests. A node that is shutting down takes none (Tomcat pauses its connectors
   * before it stops the contexts, so a handoff never races new requests), though its engine still answers peers.
   */
  boolean up() {
    return sim.alive(name) && !stopping;
  }

  /** Tomcat begins to shut down: the connectors stop taking requests. */
  void stopTakingRequests() {
    stopping = true;
  }

  ReplicationEngine engine() {
    return engine;
  }

  void stepClock(long millis) {
    clockOffsetMillis += millis;
  }

  /** The process ends at once; what it held in memory is gone. */
  void died() {
    sim.died(name);
    sim.actors().unwind(name);
    sessions.clear();
  }

  // ---- the container -------------------------------------------------------------------------------------------

  /** What one HTTP request asks. */
  record Request(Kind kind, String sessionId, String route, String key, long value, String newId) {}

  enum Kind { CREATE, WRITE, READ, LOGIN, INVALIDATE }

  /**
   * What the client got back. {@code alone}: a 200 of a node alone in its view ({@link FlushOutcome#NO_BUDDY}), which
   * promises only that the change is on that node (the contract's "or the owner is alone in its view and says so").
   */
  record Response(Status status, Long value, String detail, boolean alone) {
    Response(Status status, Long value, String detail) {
      this(status, value, detail, false);
    }

    static Response ok(Long value, boolean alone) {
      return new Response(Status.OK, value, "", alone);
    }

    static Response unavailable(String why) {
      return new Response(Status.UNKNOWN, null, why);
    }
  }

  enum Status {
    /** 200: the request's changes are on two nodes (or this one is alone and says so). */
    OK,
    /** 503 or 500: the outcome is unknown to the client. */
    UNKNOWN,
    /** No session of that id anywhere: the application would start a new one. */
    NOT_FOUND
  }

  /** Serves {@code request} on an actor (it may wait), as a Tomcat request thread would. */
  Response serve(Request request) {
    if (request.kind == Kind.CREATE) {
      Session created = new Session(request.sessionId, SessionMetadata.created(wallMillis(), 1800));
      sessions.put(created.id, created);
      created.handle = engine.sessionCreated(created.id, created);
      created.set(request.key, request.value, engine);
      return answer(engine.flush(created.handle, Set.of()), request.value);
    }
    Session session;
    try {
      session = find(request.sessionId, request.route);
    } catch (Unavailable e) {
      return Response.unavailable(e.getMessage());
    }
    if (session == null) {
      return new Response(Status.NOT_FOUND, null, "no session " + request.sessionId);
    }
    session.metadata = session.metadata.withLastAccessedTime(wallMillis());
    Set<String> reads = new HashSet<>();
    switch (request.kind) {
      case WRITE -> {
        session.set(request.key, request.value, engine);
        return answer(aloneChecked(engine.flush(session.handle, reads), "flush"), request.value);
      }
      case READ -> {
        reads.add(request.key);
        Long value = session.get(request.key);
        return answer(aloneChecked(engine.flush(session.handle, reads), "flush"), value);
      }
      case LOGIN -> {
        sessions.remove(session.id);
        session.id = request.newId;
        sessions.put(session.id, session);
        FlushOutcome changed = aloneChecked(engine.changeId(session.handle, request.newId), "id change");
        FlushOutcome flushed = aloneChecked(engine.flush(session.handle, reads), "flush");
        if (!changed.isConfirmed()) {
          return Response.unavailable("id change " + changed);
        }
        Response answered = answer(flushed, null);
        return changed == FlushOutcome.NO_BUDDY && answered.status() == Status.OK ? Response.ok(null, true) : answered;
      }
      case INVALIDATE -> {
        sessions.remove(session.id);
        CompletableFuture<FlushOutcome> ended = engine.ended(session.handle, true);
        try {
          FlushOutcome outcome = aloneChecked(sim.actors().waiter().await(ended, Duration.ofSeconds(60).toNanos()),
              "invalidation");
          return outcome.isConfirmed() ? Response.ok(null, outcome == FlushOutcome.NO_BUDDY)
              : Response.unavailable("invalidation " + outcome);
        } catch (TimeoutException | ExecutionException e) {
          return Response.unavailable("invalidation: " + e);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      default -> throw new IllegalArgumentException(request.kind.name());
    }
  }

  /**
   * {@code outcome}, after checking that an answer "alone" ({@link FlushOutcome#NO_BUDDY}) came from a node whose
   * membership view lists it alone, as it was when the engine answered (this thread runs nothing in between).
   */
  private FlushOutcome aloneChecked(FlushOutcome outcome, String what) {
    if (outcome == FlushOutcome.NO_BUDDY && engine.members().size() > 1) {
      checker.violation(Checker.Kind.ALONE_WITH_OTHERS_IN_VIEW, name + " answered a " + what + " as alone while its view"
          + " listed " + engine.members());
    }
    return outcome;
  }

  private Response answer(FlushOutcome outcome, Long value) {
    return outcome.isConfirmed() ? Response.ok(value, outcome == FlushOutcome.NO_BUDDY) : Response.unavailable("flush " + outcome);
  }

  /** As {@code TandemValve.refusedBeforeRunning} and {@code TandemManager.findSessionById}. */
  private Session find(String id, String route) throws Unavailable {
    Session local = sessions.get(id);
    if (local != null && engine.owns(local.handle)) {
      Admission admission = engine.admit(local.handle);
      if (admission.refusal().isPresent()) {
        throw new Unavailable(admission.refusal().get());
      }
      if (engine.owns(local.handle)) {
        return local;
      }
    } else {
      Admission admission = engine.admit(id);
      if (admission.refusal().isPresent()) {
        throw new Unavailable(admission.refusal().get());
      }
    }
    if (local != null) {
      sessions.remove(id); // fenced: another node owns it
    }
    boolean exists = engine.backupOf(id).isPresent();
    Acquisition acquired = engine.acquire(id, route);
    if (acquired.snapshot().isPresent()) {
      Session taken = materialize(acquired.snapshot().get());
      if (taken == null) {
        throw new Unavailable("session " + id + " moved to another node while this one took it over");
      }
      return taken;
    }
    if (acquired.unavailable().isPresent()) {
      throw new Unavailable(acquired.unavailable().get());
    }
    if (exists) {
      throw new Unavailable("session " + id + " could not be fetched from the cluster");
    }
    return null;
  }

  private Session materialize(SessionSnapshot snapshot) {
    Session again = sessions.get(snapshot.id());
    if (again != null) {
      return again;
    }
    Session session = new Session(snapshot.id(), snapshot.metadata());
    for (Map.Entry<String, Blob> a : new TreeMap<>(snapshot.attributes()).entrySet()) {
      session.attributes.put(a.getKey(), (Long) codec.decode(a.getValue(), getClass().getClassLoader()));
    }
    Optional<OwnedSession> handle = engine.attach(snapshot.id(), session);
    if (handle.isEmpty()) {
      return null;
    }
    session.handle = handle.get();
    sessions.put(session.id, session);
    return session;
  }

  long wallMillis() {
    return Simulation.EPOCH_MILLIS + sim.millis() + clockOffsetMillis;
  }

  /** Whether this node's engine owns {@code id} now. */
  boolean owns(String id) {
    return sim.alive(name) && engine.owns(id);
  }

  private static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String why) {
      super(why, null, false, false);
    }
  }

  /** A container session: attributes in a map, changes told to the engine as Tomcat's session tells them. */
  static final class Session implements SessionSource {
    String id;
    SessionMetadata metadata;
    OwnedSession handle;
    final Map<String, Long> attributes = new TreeMap<>();

    Session(String id, SessionMetadata metadata) {
      this.id = id;
      this.metadata = metadata;
    }

    void set(String key, long value, ReplicationEngine engine) {
      attributes.put(key, value);
      engine.attributeChanged(handle, key);
    }

    Long get(String key) {
      return attributes.get(key);
    }

    @Override
    public SessionMetadata metadata() {
      return metadata;
    }

    @Override
    public Set<String> attributeNames() {
      return new java.util.LinkedHashSet<>(attributes.keySet()); // in key order: Set.copyOf's order differs between JVMs
    }

    @Override
    public Object attribute(String name) {
      return attributes.get(name);
    }
  }

  private final class Listener implements ReplicationListener {
    @Override
    public void sessionFenced(String sessionId, String reason) {
      Session dropped = sessions.remove(sessionId);
      if (dropped != null) {
        sim.trace().add(name + " dropped " + sessionId + ": " + reason);
      }
    }
  }
}
