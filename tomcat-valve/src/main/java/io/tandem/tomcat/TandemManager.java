package io.tandem.tomcat;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecException;
import io.tandem.core.codec.CodecKind;
import io.tandem.core.config.InvalidConfigurationException;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationConfigParser;
import io.tandem.core.replicator.Acquisition;
import io.tandem.core.replicator.Admission;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.OwnedSession;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.replicator.ReplicationStats;
import io.tandem.core.replicator.SessionTooLarge;
import io.tandem.core.session.Blob;
import io.tandem.core.session.EncodedValue;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.transport.grizzly.GrizzlyTransport;
import java.io.IOException;
import java.security.Principal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Session;
import org.apache.catalina.session.ManagerBase;
import org.apache.catalina.session.StandardSession;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * The Tandem session manager: {@code <Manager className="io.tandem.tomcat.TandemManager" .../>} in {@code
 * context.xml}. Sessions live on the node that created them and on its buddy; after each request the manager's own
 * valve hands the session's changes to the replication engine. A request for a session this node does not hold
 * is served all the same: from the local backup, which is promoted, or by migrating the session in from whichever
 * member holds it.
 *
 * <p>Attributes are recorded as strings by {@link #setProperty} and validated together in {@link #startInternal}:
 * a bad value stops the context with a message naming the attribute, the value and what is allowed.
 */
public class TandemManager extends ManagerBase implements ReplicationListener {
  private static final Log log = LogFactory.getLog(TandemManager.class);

  private final Map<String, String> attributes = new LinkedHashMap<>();
  private volatile ReplicationEngine engine;
  private volatile AttributeCodec codec;
  private volatile LoginCodec loginCodec;
  private final ResponseCounters responses = new ResponseCounters();
  private final RestoreCounters restores = new RestoreCounters();
  /** A deploy that broke a class makes its value unreadable in every session: one line per class per 10 s. */
  private final io.tandem.core.logging.RateLimitedLog unreadable =
      new io.tandem.core.logging.RateLimitedLog(System.getLogger(TandemManager.class.getName()));
  /**
   * This context's use of the node's runtime for its cluster (one transport and one Hazelcast member per cluster per
   * JVM, shared by every context that names it); released at stop, and the last context out closes the runtime.
   */
  private volatile NodeRuntimes<SharedCluster>.Lease lease;
  /** The shared transport, for its figures. */
  private volatile GrizzlyTransport transport;
  /** Set by {@link #haltWithoutHandoff}: the stop that follows hands nothing over, as a killed node could not. */
  private volatile boolean halted;
  private volatile ClusterSettings cluster;
  private volatile String replicationFilter;
  private volatile java.util.regex.Pattern skipPattern;
  private boolean valveInstalled;
  private volatile ReplicationMBean figures;
  private volatile javax.management.ObjectName figuresName;
  private final SessionTakeovers takeovers = new SessionTakeovers();
  /**
   * Tomcat's sessions by id without the jvmRoute, kept beside its own map ({@link #add}, {@link #remove}): a request
   * carrying another node's route, and the engine naming a session by its base id, find it with one lookup rather
   * than a scan of every session.
   */
  private final java.util.concurrent.ConcurrentHashMap<String, Session> byBase = new java.util.concurrent.ConcurrentHashMap<>();
  /** Whether session ids' routes are node ids (this node's id is its jvmRoute), so that a route names a member. */
  private volatile boolean routesAreNodeIds;

  /** Records any {@code <Manager>} attribute Tomcat has no setter for; validation happens at start. */
  public boolean setProperty(String name, String value) {
    if (name.equals("replicationFilter")) {
      replicationFilter = value;
    } else {
      attributes.put(name, value);
    }
    return true;
  }

  public String getProperty(String name) {
    return attributes.get(name);
  }

  /**
   * Every Tandem attribute of the {@code <Manager>} element (not those Tomcat's {@code ManagerBase} has setters
   * for), so that other ways of configuring the manager (Spring Boot's {@code tandem.*} properties) name the same.
   */
  public static java.util.SortedSet<String> attributeNames() {
    java.util.SortedSet<String> names = new java.util.TreeSet<>(ClusterSettings.ATTRIBUTES);
    names.addAll(ReplicationConfigParser.ATTRIBUTES);
    names.addAll(TlsSettings.ATTRIBUTES);
    names.add("replicationFilter");
    return java.util.Collections.unmodifiableSortedSet(names);
  }

  @Override
  public String getName() {
    return "TandemManager";
  }

  /** Requests whose URI matches are never replicated (static resources); null when every request replicates. */
  java.util.regex.Pattern skipPattern() {
    return skipPattern;
  }

  /**
   * Installs the manager's own valve as soon as the manager joins its context, before the context configures its
   * authenticator: the valve then runs first, so that requests an authenticator answers by itself (a FORM login
   * that saves the original request in the session) are replicated too. Users write no second element.
   */
  @Override
  public void setContext(org.apache.catalina.Context context) {
    super.setContext(context);
    if (context != null && !valveInstalled) {
      context.getPipeline().addValve(new TandemValve(this));
      valveInstalled = true;
    }
  }

  @Override
  protected void startInternal() throws LifecycleException {
    super.startInternal();
    List<String> violations = new ArrayList<>();
    Map<String, String> replicationAttributes = new HashMap<>();
    attributes.forEach((k, v) -> {
      if (ReplicationConfigParser.ATTRIBUTES.contains(k)) {
        replicationAttributes.put(k, v);
      }
    });
    Set<String> known = new java.util.HashSet<>(ReplicationConfigParser.ATTRIBUTES);
    known.addAll(TlsSettings.ATTRIBUTES);
    violations.addAll(ClusterSettings.unknownAttributeViolations(attributes, known));
    ReplicationConfig config = null;
    try {
      config = ReplicationConfigParser.parse(replicationAttributes);
    } catch (InvalidConfigurationException e) {
      violations.addAll(e.violations());
    }
    ClusterSettings settings = ClusterSettings.parse(attributes, getJvmRoute(), violations);
    javax.net.ssl.SSLContext tls = TlsSettings.parse(attributes, violations);
    if (!violations.isEmpty()) {
      String message = "Invalid Tandem configuration of context [" + getContext().getName() + "]:\n  - " + String.join("\n  - ", violations);
      log.error(message);
      throw new LifecycleException(message);
    }
    this.cluster = settings;
    this.routesAreNodeIds = settings.nodeId().equals(getJvmRoute());
    DiscoverySettings.loopbackWarning(settings.discovery(), settings.bindAddress())
        .ifPresent(warning -> log.warn("Tandem: " + warning));
    this.codec = AttributeCodecs.create(config.codec(), ClassFilter.of(config.allowedClasses()), config.codecLimits(),
        config.kryoFieldEncoding());
    this.loginCodec = new LoginCodec(config.allowedClasses(), config.codecLimits());
    this.halted = false;
    String context = getContext().getName();
    Map<String, String> tlsAttributes = new HashMap<>();
    attributes.forEach((k, v) -> {
      if (TlsSettings.ATTRIBUTES.contains(k)) {
        tlsAttributes.put(k, v);
      }
    });
    RuntimeSettings runtimeSettings = new RuntimeSettings(settings, config.maxFrameSize(), tlsAttributes, tls, config.ackTimeout());
    try {
      this.lease = NodeRuntimes.JVM.acquire(context, runtimeSettings);
    } catch (ClusterSettingsMismatchException e) {
      log.error(e.getMessage());
      throw new LifecycleException(e.getMessage(), e);
    } catch (Exception e) {
      throw new LifecycleException("Tandem could not join cluster [" + settings.clusterName() + "] as [" + settings.nodeId() + "]: " + e, e);
    }
    SharedCluster shared = lease.runtime();
    this.transport = shared.transport();
    // Each context runs its own engine, on its own view of the node's transport and membership: its requests name it,
    // and its view holds the members that run it.
    this.engine = new ReplicationEngine(config, shared.runtime().transportFor(context, config.ackTimeout()),
        shared.runtime().membershipFor(context), codec, Clock.systemUTC(), this);
    // Threads the engine starts (maintenance, pause watch) must not pin the web application's loader.
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(TandemManager.class.getClassLoader());
    try {
      engine.start();
    } catch (Exception e) {
      engine.close();
      lease.close(); // the runtime stays up for the other contexts, or closes if this one started it
      lease = null;
      throw new LifecycleException("Tandem could not start context [" + context + "] in cluster [" + settings.clusterName()
          + "] as [" + settings.nodeId() + "]: " + e, e);
    } finally {
      thread.setContextClassLoader(previous);
    }
    skipPattern = replicationFilter == null || replicationFilter.isBlank() ? null : java.util.regex.Pattern.compile(replicationFilter);
    registerFigures(settings);
    log.info("Tandem manager of context [" + getContext().getName() + "] started, "
        + (lease.first(getContext().getName()) ? "starting" : "sharing") + " the node's runtime of cluster ["
        + settings.clusterName() + "]: " + settings + " " + config.describe());
    CoyoteAccess.unavailable().ifPresent(why -> log.error("Tandem cannot see responses commit in this Tomcat (" + why
        + "): a change that fails to replicate after its response was committed (a page larger than the response"
        + " buffer, a flush, an asynchronous request) is only logged and counted (ResponsesAlreadyCommitted),"
        + " and the client gets the application's answer"));
    setState(LifecycleState.STARTING);
  }

  private void registerFigures(ClusterSettings settings) {
    figures = new ReplicationMBean(engine, transport, lease.runtime().runtime(), responses, restores);
    try {
      String path = getContext().getName().isEmpty() ? "/" : getContext().getName();
      figuresName = new javax.management.ObjectName("io.tandem:type=Replication,node="
          + javax.management.ObjectName.quote(settings.nodeId()) + ",context=" + javax.management.ObjectName.quote(path));
      java.lang.management.ManagementFactory.getPlatformMBeanServer().registerMBean(figures, figuresName);
    } catch (javax.management.JMException e) {
      log.warn("Tandem figures are not available over JMX: " + e.getMessage());
      figuresName = null;
    }
  }

  @Override
  protected void stopInternal() throws LifecycleException {
    setState(LifecycleState.STOPPING);
    if (figuresName != null) {
      try {
        java.lang.management.ManagementFactory.getPlatformMBeanServer().unregisterMBean(figuresName);
      } catch (javax.management.JMException e) {
        log.debug("Tandem figures were already unregistered", e);
      }
    }
    ReplicationEngine running = engine;
    NodeRuntimes<SharedCluster>.Lease used = lease;
    if (running != null) {
      if (!halted && (used == null || !used.runtime().halted())) {
        // A rolling restart, an undeploy and a reload lose nothing: the buddy owns every session of this context before
        // the context leaves its view (its sessions come back by migration when a reloaded context asks for them).
        running.handOff(Duration.ofSeconds(30));
      }
      running.close();
    }
    if (used != null) {
      lease = null;
      used.close(); // the last context of the cluster out closes the node's runtime
    }
    super.stopInternal();
  }

  /**
   * What {@code kill -9} of this node looks like to the rest of the cluster, for the failover tests (the node's runtime
   * is shared, so every context of the node stops replicating at once): the Hazelcast member terminates without a leave message (the others drop it by failure detection, as after a crash), the
   * engine stops without the graceful handoff, and its transport drops the frames it has queued and closes its
   * sockets with no goodbye. A session then survives only through what was replicated before, which is what a
   * failover test must prove; after a graceful stop it would survive anyway, re-sent whole by the handoff. Tomcat's
   * stop, which the caller runs next so that the node stops answering, hands nothing over. Neither Tandem nor Tomcat
   * calls this: a real stop is {@link #stopInternal}.
   */
  void haltWithoutHandoff() {
    halted = true;
    NodeRuntimes<SharedCluster>.Lease used = lease;
    if (used != null) {
      used.runtime().halt(); // the whole node, every context of it, as a killed process
    }
    ReplicationEngine running = engine;
    if (running != null) {
      running.close();
    }
  }

  @Override
  public void load() {
    // Sessions survive a restart through the buddy, not through a file.
  }

  @Override
  public void unload() {
    // See load().
  }

  // ---- sessions -------------------------------------------------------------------------------------------------

  @Override
  protected StandardSession getNewSession() {
    return new TandemSession(this);
  }

  @Override
  public Session createSession(String sessionId) {
    Optional<String> refusal = RequestTracking.newSessionRefusal();
    if (refusal.isPresent()) {
      // The session the request carried exists but moved to another node after the request was admitted (or the
      // valve answered 503 already, and an error page asks): a new, empty session in its place would end with a new
      // cookie, and the user's session would be lost to the client. The valve answers 503 for the request
      // (parallel-requests drill, through HAProxy).
      throw new IllegalStateException("Tandem: no new session for this request: " + refusal.get());
    }
    Session session = super.createSession(sessionId);
    TandemSession tandem = (TandemSession) session;
    tandem.bind(engine.sessionCreated(stripRoute(session.getIdInternal()), tandem));
    return session;
  }

  /**
   * Why a value of this class will not be replicated, judged on its top-level class alone (the codec caches it per
   * class): a value refused here is refused at {@code setAttribute}; a value accepted here may still hold something
   * that cannot be replicated, which the codec finds at the end of the request.
   */
  Optional<String> refusalOf(Object value) {
    AttributeCodec current = codec;
    return current == null ? Optional.empty() : current.refusalOf(value);
  }

  ResponseCounters responses() {
    return responses;
  }

  /**
   * The session {@code requestedId} names if this node owns it: the request's one lookup, by the id as the request
   * carries it (or, when it carries another node's route, as this node names it). It is remembered for the request,
   * so that Tomcat's own {@link #findSession} for it looks nothing up again, and the valve, the manager and the
   * engine go on through the session and its handle. Null when not owned here: the request then takes the by-id
   * path, which also takes over a session held elsewhere.
   */
  TandemSession ownedSession(String requestedId) {
    if (requestedId == null || engine == null) {
      return null;
    }
    Session found = sessions.get(requestedId);
    if (found == null) {
      found = byBase.get(stripRoute(requestedId)); // a client still using the former owner's route
    }
    if (found instanceof TandemSession tandem && tandem.ownedHere()) {
      RequestTracking.foundOwned(requestedId, tandem);
      return tandem;
    }
    return null;
  }

  /**
   * {@link #admit(String)} of a session {@link #ownedSession} found: through its handle, so neither the manager nor
   * the engine looks it up, and no lock is taken unless this node was paused or cut off.
   */
  Admission admit(TandemSession owned) {
    return engine.admit(owned.handle());
  }

  /** Whether the engine still owns the session of {@code handle}; false once the engine is gone. */
  boolean ownsHandle(OwnedSession handle) {
    ReplicationEngine running = engine;
    return running != null && running.owns(handle);
  }

  /**
   * Whether a request carrying session id {@code requestedId} may run on this node now: empty if so, otherwise why
   * not (after a pause this node confirms its sessions with the cluster before serving them; see the engine).
   */
  Admission admit(String requestedId) {
    ReplicationEngine running = engine;
    return requestedId == null || running == null ? Admission.ADMITTED : running.admit(stripRoute(requestedId));
  }

  /**
   * Whether this node holds a backup of the session {@code requestedId} names (so it exists in the cluster) without
   * owning it. Asked on every request: the owner's case, the common one, costs one concurrent-map lookup and never
   * touches the backup store's lock.
   */
  boolean holdsBackupOf(String requestedId) {
    ReplicationEngine running = engine;
    if (requestedId == null || running == null) {
      return false;
    }
    String base = stripRoute(requestedId);
    return !running.owns(base) && running.backupOf(base).isPresent();
  }

  /** Whether a request's response may only say "done" once the buddy holds the change. */
  boolean synchronous() {
    ReplicationEngine running = engine;
    return running != null && running.config().mode() == io.tandem.core.config.ReplicationMode.SYNC;
  }

  /**
   * Finds a session whatever jvmRoute suffix the id carries; a session this node does not hold live is promoted
   * from the local backup (or from a session adopted after its owner died), or migrated in from its holder. The
   * session the valve found owned here for the current request is answered without a lookup, as long as it is still
   * owned here; once fenced it is looked up by id like any other.
   */
  @Override
  public Session findSession(String id) throws IOException {
    if (id == null) {
      return null;
    }
    TandemSession found = RequestTracking.foundOwned(id);
    if (found != null && found.ownedHere()) {
      return found;
    }
    return findSessionById(id);
  }

  /** {@link #findSession} for an id the valve did not find owned here for the current request. */
  Session findSessionById(String id) throws IOException {
    String base = stripRoute(id);
    Session local = localSession(id, base);
    if (local != null && engine.owns(base)) {
      return local;
    }
    if (local == null && RequestTracking.wasFoundNowhere(base)) {
      return null; // this request asked the cluster already
    }
    SessionTakeovers.Result taken;
    try {
      taken = takeovers.once(base, () -> takeOver(id, base));
    } catch (IOException e) {
      // Tomcat answers "no session" to this (and creates a new one): the session may exist all the same.
      RequestTracking.unavailableWhileRunning(base, "session " + base + " could not be taken over: " + e.getMessage());
      throw e;
    }
    if (taken.session() == null && taken.unavailable().isPresent()) {
      // Asked for while the request runs (the valve brought in or found owned what the request carried before the
      // application ran), it exists but cannot be had now: typically it moved to a node a parallel request reached.
      RequestTracking.unavailableWhileRunning(base, taken.unavailable().get());
    } else if (taken.session() != null) {
      RequestTracking.availableAgain(base);
    }
    return taken.session();
  }

  /**
   * Brings in the session {@code requestedId} names before a request for it runs on this node, which does not own
   * it. Returns why not when the session may exist but cannot be brought in now: the request must then be retried,
   * not run with a new, empty session in its place. Empty when it was brought in, or exists nowhere.
   */
  Optional<String> bringIn(String requestedId) throws IOException {
    String base = stripRoute(requestedId);
    return takeovers.once(base, () -> takeOver(requestedId, base)).unavailable();
  }

  /** Whether the engine owns the session {@code requestedId} names: the common case, one concurrent-map lookup. */
  boolean owns(String requestedId) {
    ReplicationEngine running = engine;
    return running != null && running.owns(stripRoute(requestedId));
  }

  /** Runs alone for its session id (see {@link SessionTakeovers}). */
  private SessionTakeovers.Result takeOver(String id, String base) throws IOException {
    // Looked up again: a takeover that ended while this request waited to start its own may have brought it in.
    Session local = localSession(id, base);
    if (local != null && engine.owns(base)) {
      return SessionTakeovers.Result.found(local);
    }
    if (local instanceof TandemSession stale) {
      // The engine let go of it (fenced) and the listener has not dropped this copy yet: it must not be served.
      stale.detach();
    }
    Acquisition acquired = engine.acquire(base, routeOf(id));
    if (acquired.snapshot().isPresent()) {
      Session session = materialize(base, acquired.snapshot().get());
      return session != null ? SessionTakeovers.Result.found(session) : new SessionTakeovers.Result(null, Optional.of(
          "session " + base + " moved to another node while this one took it over; retry"));
    }
    if (acquired.unavailable().isEmpty()) {
      RequestTracking.foundNowhere(base);
    }
    return new SessionTakeovers.Result(null, acquired.unavailable());
  }

  /** The node id the session id's jvmRoute names, or null when it names none (or routes are not node ids here). */
  private String routeOf(String id) {
    int dot = id.indexOf('.');
    return dot < 0 || !routesAreNodeIds ? null : id.substring(dot + 1);
  }

  /** This node's Tomcat session of {@code base}, whatever jvmRoute suffix {@code id} or the session carries. */
  private Session localSession(String id, String base) {
    Session local = sessions.get(id);
    return local != null ? local : byBase.get(base);
  }

  @Override
  public void add(Session session) {
    super.add(session);
    byBase.put(stripRoute(session.getIdInternal()), session);
  }

  @Override
  public void remove(Session session, boolean update) {
    super.remove(session, update);
    String id = session.getIdInternal();
    if (id != null) {
      byBase.remove(stripRoute(id), session);
    }
  }

  /**
   * The session taken over, as a Tomcat session. Its attributes stay encoded ({@link EncodedValue}) until the
   * application reads each (see {@link TandemSession#getAttribute}); only the principal and notes, which a login
   * needs at once, are decoded here. No lock: one takeover of a session runs at a time ({@link SessionTakeovers}).
   * Null when the engine no longer owns it (a member that owns it at the same or a newer epoch fenced it in the
   * moment since it was taken over): served, it would answer 200 for changes no node keeps.
   */
  private Session materialize(String base, SessionSnapshot snapshot) {
    Session again = sessions.get(withRoute(base));
    if (again != null) {
      return again;
    }
    ClassLoader loader = applicationLoader();
    Map<String, Object> values = new HashMap<>();
    for (Map.Entry<String, Blob> attribute : snapshot.attributes().entrySet()) {
      values.put(attribute.getKey(), new EncodedValue(attribute.getValue()));
    }
    Principal principal = loginCodec.decodePrincipal(base, snapshot.metadata().principal(), loader);
    boolean loginLost = principal == null && snapshot.metadata().principal() != null;
    TandemSession session = (TandemSession) createEmptySession();
    session.restore(snapshot.metadata(), values, principal);
    for (Map.Entry<String, Blob> note : snapshot.metadata().notes().entrySet()) {
      Optional<Object> value = loginCodec.decodeNote(base, note.getKey(), note.getValue(), loader);
      value.ifPresent(v -> session.setNote(note.getKey(), v));
      loginLost |= value.isEmpty();
    }
    if (loginLost) {
      restores.loginsUnreadable.increment();
    }
    // Bound to the engine before Tomcat can find it (setId adds it to this manager): a request for the same id that
    // found it in between would change it unseen by the engine, and be answered 200 for changes no node keeps.
    Optional<OwnedSession> handle = engine.attach(base, session);
    if (handle.isEmpty()) {
      log.warn("Session [" + base + "] was fenced while node [" + cluster.nodeId() + "] took it over: another member owns it");
      return null;
    }
    session.bind(handle.get());
    session.setId(withRoute(base), false);
    session.activate();
    log.info("Session [" + base + "] taken over by node [" + cluster.nodeId() + "] (epoch " + (snapshot.epoch()) + ", version " + snapshot.version() + ")");
    return session;
  }

  /** The web application's class loader, through which values of a session taken over are decoded. */
  ClassLoader applicationLoader() {
    return getContext().getLoader() == null ? getClass().getClassLoader() : getContext().getLoader().getClassLoader();
  }

  /** The attribute codec (set at start; null before). */
  AttributeCodec attributeCodec() {
    return codec;
  }

  /** An attribute of a session taken over, decoded on the application's first read of it. */
  Object decodeAttribute(Blob bytes) throws CodecException {
    return attributeCodec().decode(bytes, applicationLoader());
  }

  /**
   * Attribute {@code name} of session {@code sessionId}, taken over as {@code bytes}, could not be decoded here and
   * was dropped alone: counted ({@code AttributesUnreadable}) and logged naming the session, the attribute and the
   * class the bytes name, at most one line per class every 10 s (a deploy that broke a class breaks it in every
   * session).
   */
  void attributeUnreadable(String sessionId, String name, Blob bytes, CodecException cause) {
    restores.attributesUnreadable.increment();
    AttributeCodec current = attributeCodec();
    String type = current == null ? "unknown" : current.className(bytes).orElse("unknown");
    unreadable.warn(type, "Session [" + sessionId + "] attribute [" + name + "] of class [" + type + "] cannot be"
        + " restored on this node and was dropped; the session keeps its other attributes: " + cause.getMessage());
  }

  @Override
  protected void changeSessionId(Session session, String newId, boolean notifySessionListeners, boolean notifyContainerListeners) {
    TandemSession tandem = (TandemSession) session;
    String oldBase = tandem.baseId();
    super.changeSessionId(session, newId, notifySessionListeners, notifyContainerListeners);
    String newBase = tandem.baseId();
    if (!oldBase.equals(newBase)) {
      OwnedSession handle = tandem.handle();
      FlushOutcome changed = handle != null ? engine.changeId(handle, newBase) : engine.changeId(oldBase, newBase);
      RequestTracking.mustConfirm(CompletableFuture.completedFuture(changed));
    }
  }

  String withRoute(String base) {
    String route = getJvmRoute();
    return route == null || route.isEmpty() ? base : base + "." + route;
  }

  static String stripRoute(String id) {
    int dot = id.indexOf('.');
    return dot < 0 ? id : id.substring(0, dot);
  }

  // ---- what sessions and the valve report ---------------------------------------------------------------------

  void attributeChanged(TandemSession session, String name) {
    ReplicationEngine running = engine;
    OwnedSession handle = session.handle();
    if (running != null && handle != null) {
      running.attributeChanged(handle, name);
    }
  }

  /** {@link #ended(String, boolean)} through the engine's handle on the session. */
  CompletableFuture<FlushOutcome> ended(OwnedSession handle, boolean invalidated) {
    ReplicationEngine running = engine;
    return running == null ? CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED) : running.ended(handle, invalidated);
  }

  /** The session ended here; the future completes when the buddy acknowledged it (see the engine). */
  CompletableFuture<FlushOutcome> ended(String base, boolean invalidated) {
    ReplicationEngine running = engine;
    if (running == null) {
      return CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED);
    }
    return invalidated ? running.invalidated(base) : running.expired(base);
  }

  FlushOutcome flush(TandemSession session, Set<String> reads) {
    long started = System.nanoTime();
    OwnedSession handle = session.handle();
    FlushOutcome outcome = handle != null ? engine.flush(handle, reads) : engine.flush(session.baseId(), reads);
    if (outcome == FlushOutcome.NOT_OWNED && handle == null && session.keptNowhere()) {
      outcome = FlushOutcome.FENCED; // never a 200 for changes no node keeps
    }
    ReplicationMBean recorder = figures;
    if (recorder != null && outcome != FlushOutcome.NOTHING && outcome != FlushOutcome.NOT_OWNED) {
      recorder.recordFlush(System.nanoTime() - started);
    }
    return outcome;
  }

  /** The codec of the principal and notes (set at start). */
  LoginCodec loginCodec() {
    return loginCodec;
  }

  // ---- ReplicationListener --------------------------------------------------------------------------------------

  @Override
  public void sessionFenced(String sessionId, String reason) {
    if (byBase.get(sessionId) instanceof TandemSession tandem) {
      log.warn("Session [" + sessionId + "] is owned by another node now; dropping the local copy (" + reason + ")");
      tandem.detach();
    }
  }

  @Override
  public void attributeNotReplicable(String sessionId, String attribute, CodecException cause) {
    RequestTracking.notReplicable("session attribute [" + attribute + "] cannot be replicated: " + cause.getMessage());
  }

  /** Said in the 500 of the request whose flush left an attribute it set out of the copy (see {@code Verdict}). */
  @Override
  public void sessionTooLarge(SessionTooLarge finding) {
    RequestTracking.notReplicable(finding.describe());
  }

  @Override
  public void attributeChangedWithoutSet(String sessionId, String attribute) {
    log.warn("Session [" + sessionId + "] attribute [" + attribute + "] was changed without setAttribute");
  }

  /** Replication figures, for JMX and tests. */
  public ReplicationStats getReplicationStats() {
    return engine.stats();
  }

  public int getSessionsWithoutBackup() {
    return engine.sessionsWithoutBackup();
  }

  public int getOwnedSessions() {
    return engine.stats().ownedSessions();
  }

  public int getBackupSessions() {
    return engine.stats().backupSessions();
  }

  public long getBackupBytes() {
    return engine.stats().backupBytes();
  }

  public long getAckTimeouts() {
    return engine.stats().ackTimeouts();
  }

  public long getSessionsPromoted() {
    return engine.stats().sessionsPromoted();
  }

  /** Attribute values of sessions taken over that could not be decoded here, each dropped alone (see the JMX bean). */
  public long getAttributesUnreadable() {
    return restores.attributesUnreadable.sum();
  }

  /** Sessions taken over without their login, or a note of it, because it could not be decoded here. */
  public long getLoginsUnreadable() {
    return restores.loginsUnreadable.sum();
  }

  public long getRefusedPeers() {
    return transport.stats().authenticationFailures();
  }

  ReplicationEngine engine() {
    return engine;
  }

  /** The node's runtime this context shares with the others of its cluster (null while stopped), for tests. */
  io.tandem.core.node.NodeRuntime nodeRuntime() {
    NodeRuntimes<SharedCluster>.Lease used = lease;
    return used == null ? null : used.runtime().runtime();
  }

  /** The transport's figures, for tests and diagnostics. */
  io.tandem.transport.grizzly.TransportStats transportStats() {
    return transport.stats();
  }

  CodecKind codecKind() {
    return engine.config().codec();
  }
}
