package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.EngineRuntime;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message.InvalidateReason;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The container-independent replication engine of one node: the owner side (flush each request's changes to the
 * buddy, SYNC or ASYNC), the backup side (answer other owners' messages from a bytes-only {@link BackupStore}),
 * and recovery on view changes (re-protect sessions whose buddy changed, adopt backups whose owner died).
 *
 * <p>A facade over parts that {@link EngineParts} builds and wires (docs/protocol.md names each one's rules): {@link
 * OwnerWrites}, {@link IncomingRequests}, {@link RingTracker}, {@link Reprotection}, {@link Adoption}, {@link
 * Migrations}, {@link Quarantine}, {@link Fencing}, {@link Maintenance} and the rest.
 *
 * <p>Implementation notes: no state of its own beyond its parts; each part's notes say which thread or lock owns its
 * state. Time and threads come from the {@link EngineRuntime} (docs/protocol.md, "Time and threads").
 */
public final class ReplicationEngine implements AutoCloseable {
  /** The logger of the engine and of its parts (but Quarantine and AsyncOutbox): where operators find their lines. */
  static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final EngineParts parts;

  public ReplicationEngine(ReplicationConfig config, Transport transport, Membership membership, AttributeCodec codec,
      InstantSource clock, ReplicationListener listener) {
    this(config, transport, membership, codec, EngineRuntime.system(clock), listener);
  }

  /**
   * On the time and threads of {@code runtime}: its ticker measures pauses and deadlines, its wall clock dates
   * sessions and tombstones, and its schedulers run the maintenance tick, the pause watch and the engine's timeouts.
   * Tests and the simulation move a manual runtime; {@link EngineRuntime#system} is what the other constructor uses.
   */
  public ReplicationEngine(ReplicationConfig config, Transport transport, Membership membership, AttributeCodec codec,
      EngineRuntime runtime, ReplicationListener listener) {
    this(config, transport, membership, codec, runtime, listener, new ConcurrentHashMap<>());
  }

  /** With the index of owned sessions by id given: tests count the lookups a request makes. */
  ReplicationEngine(ReplicationConfig config, Transport transport, Membership membership, AttributeCodec codec,
      EngineRuntime runtime, ReplicationListener listener, ConcurrentHashMap<String, OwnedSession> ownedById) {
    this.parts = new EngineParts(Objects.requireNonNull(config, "config"),
        Objects.requireNonNull(transport, "transport"), Objects.requireNonNull(membership, "membership"), codec,
        Objects.requireNonNull(runtime, "runtime"), Objects.requireNonNull(listener, "listener"), ownedById);
  }

  /** Starts the transport and membership and begins following views. */
  public void start() throws Exception {
    ReplicationConfig config = parts.config;
    LOG.log(Level.INFO, "Tandem node {0} starting with {1}", parts.local.value(), config.describe());
    parts.transport.watchPeers(parts.ring);
    parts.transport.start(parts.incoming::handle);
    parts.membership.start();
    parts.quarantine.start();
    Duration pauseCheck = Duration.ofMillis(Math.max(10, config.pauseThreshold().toMillis() / 10)); // a tenth of it
    parts.pauseWatch.scheduleAtFixedRate(parts.quarantine::checkPause, pauseCheck, pauseCheck);
    parts.membership.addViewListener(parts::onView);
    parts.maintenance.start(Duration.ofMillis(config.maintenanceInterval().toMillis()));
  }

  public NodeId localNode() {
    return parts.local;
  }

  public ReplicationConfig config() {
    return parts.config;
  }

  /** The current buddy, or empty when this node is alone. */
  public Optional<NodeId> buddy() {
    return parts.ring.buddyIfAny();
  }

  /** The members of the view this node acts on (empty before the first view). */
  public List<NodeId> members() {
    return parts.ring.members();
  }

  // ---- owner side: the container reports session life cycle and requests -------------------------------------

  /**
   * A new session was created on this node; it is owned here at epoch 1 and its first flush sends it in full.
   * Returns the engine's handle on it, which the container keeps with its session.
   */
  public OwnedSession sessionCreated(String id, SessionSource source) {
    OwnedSession session = new OwnedSession(id, Claims.CREATED, 0, new SessionContent.Live(source));
    if (!parts.owned.add(session)) {
      throw new IllegalStateException("Session [" + id + "] is already owned by this node");
    }
    parts.unknown.appeared(id);
    return session;
  }

  /** {@code setAttribute} or {@code removeAttribute} was called (on any thread). */
  public void attributeChanged(OwnedSession session, String name) {
    session.attributeChanged(name);
  }

  /** {@link #attributeChanged(OwnedSession, String)} by id, for callers without the handle. */
  public void attributeChanged(String id, String name) {
    parts.owned.get(id).ifPresent(s -> s.attributeChanged(name));
  }

  /** Max inactive interval, principal, auth type or a note changed. */
  public void metadataChanged(OwnedSession session) {
    session.metadataChanged();
  }

  /**
   * A request that used the session is done. Sends what the scope calls for; in SYNC mode waits until a buddy
   * acknowledged every change of the request, as {@link OwnerWrites} describes. The outcome says what the client
   * may be told.
   *
   * @param readNames attributes the request read (the mutation policy decides whether that counts as a change)
   */
  public FlushOutcome flush(OwnedSession session, Set<String> readNames) {
    return parts.writes.flush(session, readNames);
  }

  /** {@link #flush(OwnedSession, Set)} by id, for callers without the handle; NOT_OWNED when not owned here. */
  public FlushOutcome flush(String id, Set<String> readNames) {
    return parts.owned.get(id).map(s -> parts.writes.flush(s, readNames)).orElse(FlushOutcome.NOT_OWNED);
  }

  /** The container changed the session's id (for example at login). */
  public FlushOutcome changeId(String oldId, String newId) {
    parts.unknown.appeared(newId);
    return parts.owned.get(oldId).map(s -> parts.writes.changeId(s, oldId, newId)).orElse(FlushOutcome.NOT_OWNED);
  }

  /**
   * {@link #changeId(String, String)} through the handle: FENCED once another node owns the session (the id change
   * did not reach it, and the old id is served on there: a 200 would let the login's abandoned id live), NOT_OWNED
   * once it ended.
   */
  public FlushOutcome changeId(OwnedSession session, String newId) {
    parts.unknown.appeared(newId);
    if (session.isActive()) {
      return parts.writes.changeId(session, session.id(), newId);
    }
    return session.isFenced() ? FlushOutcome.FENCED : FlushOutcome.NOT_OWNED;
  }

  /**
   * The application invalidated the session. The future completes when the buddy acknowledged the invalidation
   * (or this node is alone), or with UNCONFIRMED after the ack timeout; in both modes a request that invalidated
   * its session must not be answered 200 before it completes confirmed.
   */
  public CompletableFuture<FlushOutcome> invalidated(String id) {
    return end(id, InvalidateReason.INVALIDATED);
  }

  /** The container expired the session (expiry belongs to the owner). */
  public CompletableFuture<FlushOutcome> expired(String id) {
    return end(id, InvalidateReason.EXPIRED);
  }

  private CompletableFuture<FlushOutcome> end(String id, InvalidateReason reason) {
    return parts.owned.get(id).map(s -> parts.writes.end(s, reason))
        .orElse(CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED));
  }

  /**
   * {@link #invalidated(String)} or {@link #expired(String)} through the handle, never ending a copy another node took
   * over in its name: an invalidation of a session fenced here is FENCED (the logout did not reach the owner, which
   * serves the session on: not a 200), an expiry of one, or an end of one that ended, NOT_OWNED.
   */
  public CompletableFuture<FlushOutcome> ended(OwnedSession session, boolean invalidated) {
    if (session.isActive()) {
      return parts.writes.end(session, invalidated ? InvalidateReason.INVALIDATED : InvalidateReason.EXPIRED);
    }
    return CompletableFuture.completedFuture(
        invalidated && session.isFenced() ? FlushOutcome.FENCED : FlushOutcome.NOT_OWNED);
  }

  // ---- failover: requests for sessions this node does not hold live (see Migrations) ------------------------------

  /**
   * The bytes of a session this node takes over without asking: adopted from a dead owner, or a backup held here (owned
   * then at a higher epoch, fencing the old owner). The container deserializes it, then calls {@link #attach}.
   */
  public Optional<SessionSnapshot> promote(String id) {
    return parts.migrations.promote(id);
  }

  /**
   * The bytes of a session wherever it is in the cluster: promoted locally, or located (every member is asked) and
   * migrated in from its owner, or its backup when no owner answers; an id found nowhere is remembered for a while
   * ({@link UnknownSessions}). Owned here afterwards at a higher epoch. Blocks for a few ack timeouts at most
   * ({@link Migrations#acquire}). A session some member holds but would not or could not hand over, or a silent
   * member may hold, is unavailable, never absent.
   */
  public Acquisition acquire(String id) {
    return parts.migrations.acquire(id, Optional.empty());
  }

  /**
   * {@link #acquire(String)} of a session id whose route names the node that last served it ({@code route}, a node
   * id; null or not a valid node id when there is none): the session is asked of that node and of its buddy first,
   * in one round trip where one of them holds it, and every member is asked only when that cannot settle it.
   */
  public Acquisition acquire(String id, String route) {
    return parts.migrations.acquire(id, Locator.routeHint(route));
  }

  /** The container materialized a promoted session, read from {@code source} from now on; empty if let go meanwhile. */
  public Optional<OwnedSession> attach(String id, SessionSource source) {
    Optional<OwnedSession> session = parts.owned.get(id);
    session.ifPresent(s -> s.attach(source));
    return session;
  }

  public boolean owns(String id) {
    return parts.owned.get(id).isPresent();
  }

  /** {@link #owns(String)} through the handle: not fenced, ended or handed away; without a lookup or a lock. */
  public boolean owns(OwnedSession session) {
    return session.isActive();
  }

  /** The backup this node holds of another owner's session (bytes only), for tests and diagnostics. */
  public Optional<SessionSnapshot> backupOf(String id) {
    return parts.backups.entry(id).map(BackupStore.BackupEntry::snapshot);
  }

  /** Whether a request for session {@code id} may run here now ({@link Quarantine#admit}); outside quarantine, yes. */
  public Admission admit(String id) {
    return parts.migrations.unlessReleasePending(id, parts.quarantine.admit(id));
  }

  /** {@link #admit(String)} through the handle: no lookup, and no lock unless this node was paused or cut off. */
  public Admission admit(OwnedSession session) {
    return parts.migrations.unlessReleasePending(session, parts.quarantine.admit(session));
  }

  /**
   * Before a graceful shutdown: hands every owned session, in full and as it is now, to the buddy, which owns them
   * from then on (at the next epoch) and protects them on its own buddy. Returns the number handed over; sessions
   * the buddy did not acknowledge within the timeout stay with their backups, as after a crash.
   */
  public int handOff(Duration timeout) {
    parts.migrations.leaving(timeout.toNanos()); // releases of the sessions handed out, answered before this node leaves
    return parts.ring.buddyIfAny().map(to -> parts.handoff.handOff(to, timeout)).orElse(0);
  }

  /** Runs one maintenance tick and waits for it, for tests on the production schedulers: {@link Maintenance#runNow}. */
  public void runMaintenance() {
    parts.maintenance.runNow();
  }

  public ReplicationStats stats() {
    return parts.counters.stats(parts.owned, parts.backups.stats(), parts.outbox == null ? 0 : parts.outbox.size(),
        parts.migrations.handoversUndecided());
  }

  /** How many ids this node remembers as held nowhere in the cluster (a request for one asks no member). */
  public int unknownSessionsRemembered() {
    return parts.unknown.size();
  }

  /** Owned sessions of which the current buddy holds no copy right now. */
  public int sessionsWithoutBackup() {
    return parts.owned.unprotectedCount();
  }

  /** How long the last view change took to get back to full protection; empty while none has completed. */
  public Optional<Duration> lastReprotectionTime() {
    return parts.owned.lastRecovery();
  }

  @Override
  public void close() {
    Optional.ofNullable(parts.outbox).ifPresent(AsyncOutbox::close);
    parts.maintenance.close();
    parts.pauseWatch.close();
    parts.membership.close();
    parts.transport.close();
  }
}
