package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.logging.RateLimitedLog;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.ring.BuddyRing;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.EngineRuntime;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * The container-independent replication engine of one node: the owner side (flush each request's changes to the
 * buddy, SYNC or ASYNC), the backup side (answer other owners' messages from a bytes-only {@link BackupStore}),
 * and recovery on view changes (re-protect sessions whose buddy changed, adopt backups whose owner died).
 *
 * <p>Implementation notes:
 *
 * <ul>
 *   <li>{@code view} is written only by the membership's view-delivery thread; {@code buddy} is derived from it and
 *       from the {@link SuspectedPeers} overlay under {@code ringLock}, by that thread or the transport's peer-event
 *       thread; both are read by everyone (volatile). Nothing under {@code ringLock} does I/O or completes a future:
 *       it marks sessions for re-protection and queues them for the state transfer.
 *   <li>Each {@link OwnedSession} guards its own state; the engine holds that lock while it prepares an update and
 *       hands it to the transport or the async queue, so a session's updates leave in version order. The async
 *       queue's one sender thread sends without it ({@link AsyncOutbox}).
 *   <li>The maintenance scheduler ({@link Scheduler.Lane#MAINTENANCE}, in production the thread {@code
 *       tandem-maintenance-<node>}) runs the tick (touch batches, orphan expiry, repairs, retried invalidations) and
 *       the state transfer; it is the only one that builds bulk batches.
 *   <li>Time and threads come from the {@link EngineRuntime}: the engine reads no clock of the JVM's and starts no
 *       thread of its own for its periodic work (docs/protocol.md, "Time and threads", lists what still blocks).
 *   <li>{@code unackedInvalidations} and {@code releaseAfterProtection} are concurrent maps; entries are removed by
 *       whichever thread sees the ack.
 * </ul>
 */
public final class ReplicationEngine implements AutoCloseable {
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());
  /**
   * How recently a member the view drops must have sent a frame for the drop to be doubted. Hazelcast drops a silent
   * member after at least two seconds without a heartbeat (heartbeatInterval 1 s + 1), and a killed one after its
   * connections closed, which closes this node's too; a member heard within one second was neither.
   */
  private static final Duration STILL_HEARD = Duration.ofSeconds(1);

  private final ReplicationConfig config;
  private final Transport transport;
  private final Membership membership;
  private final InstantSource clock;
  private final ReplicationListener listener;
  private final NodeId local;
  private final ReplicationCounters counters = new ReplicationCounters();
  private final RateLimitedLog log;
  private final FlushRules rules;
  private final OwnedSessions owned;
  private final BackupStore backups;
  private final TouchCoalescer touches = new TouchCoalescer();
  private final Scheduler maintenance;
  /**
   * The pause check's own lane (a thread in production). On the maintenance thread it waited behind ticks, which
   * take each session's lock in turn: a tick held up by busy sessions looked like a JVM pause and put the node in
   * quarantine.
   */
  private final Scheduler pauseWatch;
  private final AsyncOutbox outbox;
  private final StateTransfer stateTransfer;
  private final IncomingRequests incoming;
  private final PendingInvalidations invalidations = new PendingInvalidations();
  private final ViewChanges views;
  private final OwnerWrites writes;
  /** Former buddies to release each session's copy at, and since when (see {@link #releaseFormerBackups}). */
  private final Map<OwnedSession, Release> releaseAfterProtection = new ConcurrentHashMap<>();
  private final Ticker ticker;
  /** {@code tombstoneTtl}: how long a release waits for a former buddy that is out of the view to come back. */
  private final long releaseWaitNanos;
  private final Locator locator;
  private final Quarantine quarantine;
  private final Migrations migrations;
  private final LeftoverCopies leftovers;
  private final GracefulHandoff handoff;
  private final UnknownSessions unknown;
  private final SuspectedPeers suspects = new SuspectedPeers();
  /** Serialises the derivation of {@code buddy} from the view and the suspects, and the re-protection it starts. */
  private final Object ringLock = new Object();
  private volatile MembershipView view;

  /** Written only under {@code ringLock} (see {@link #followRing}); read by anyone without it. */
  private volatile NodeId buddy;

  /** Set by {@link #close}: a closed scheduler drops tasks, and {@link #runMaintenance} must not wait for one. */
  private volatile boolean closed;

  public ReplicationEngine(
      ReplicationConfig config,
      Transport transport,
      Membership membership,
      AttributeCodec codec,
      InstantSource clock,
      ReplicationListener listener) {
    this(config, transport, membership, codec, EngineRuntime.system(clock), listener);
  }

  /**
   * On the time and threads of {@code runtime}: its ticker measures pauses and deadlines, its wall clock dates
   * sessions and tombstones, and its schedulers run the maintenance tick, the pause watch and the engine's timeouts.
   * Tests and the simulation move a manual runtime; {@link EngineRuntime#system} is what the other constructor uses.
   */
  public ReplicationEngine(
      ReplicationConfig config,
      Transport transport,
      Membership membership,
      AttributeCodec codec,
      EngineRuntime runtime,
      ReplicationListener listener) {
    this(config, transport, membership, codec, runtime, listener, new ConcurrentHashMap<>());
  }

  /** With the index of owned sessions by id given: tests count the lookups a request makes. */
  ReplicationEngine(
      ReplicationConfig config,
      Transport transport,
      Membership membership,
      AttributeCodec codec,
      EngineRuntime runtime,
      ReplicationListener listener,
      ConcurrentHashMap<String, OwnedSession> ownedById) {
    this.config = Objects.requireNonNull(config, "config");
    Ticker ticker = Objects.requireNonNull(runtime, "runtime").ticker();
    this.ticker = ticker;
    this.releaseWaitNanos = config.tombstoneTtl().toNanos();
    // A member whose host refused the redial holds nothing any more: asking it would only make a lookup "unknown".
    this.locator =
        new Locator(transport.localNode(), transport, this::viewWithoutSuspects, config.ackTimeout(), ticker, runtime.waiter());
    this.transport = Objects.requireNonNull(transport, "transport");
    this.membership = Objects.requireNonNull(membership, "membership");
    this.clock = runtime.wallClock();
    this.listener = Objects.requireNonNull(listener, "listener");
    this.local = transport.localNode();
    this.log = new RateLimitedLog(LOG, ticker::read);
    this.views = new ViewChanges(ticker, runtime.waiter());
    this.rules = new FlushRules(config, codec, listener, counters, log);
    this.owned = new OwnedSessions(clock, ownedById);
    // Lifetimes (tombstones, handed-away ids, the transfer rate) on the ticker, session times on the wall clock: a
    // clock step dropped tombstones at once, or kept them for as long as the step (docs/protocol.md 8.4).
    InstantSource lifetimes = ticker.asLocalClock();
    this.backups = new BackupStore(clock, lifetimes, config.tombstoneTtl(), config.maxBackupBytes());
    this.maintenance = runtime.schedulers().create(Scheduler.Lane.MAINTENANCE, local);
    this.pauseWatch = runtime.schedulers().create(Scheduler.Lane.PAUSE_WATCH, local);
    // Not closed with the engine: a timeout armed before close still completes the future it guards.
    Scheduler timeouts = runtime.schedulers().create(Scheduler.Lane.TIMEOUTS, local);
    this.outbox =
        config.mode() == ReplicationMode.ASYNC
            ? new AsyncOutbox(config.asyncQueueCapacity(), AsyncOutbox.MAX_IN_FLIGHT,
                // every request fails by the transport's timeout (the ack timeout, as the managers configure it)
                config.ackTimeout().toNanos() * 2, "tandem-async-" + local.value(),
                (session, item, more) -> writes().sendQueued(session, item, more))
            : null;
    this.writes = new OwnerWrites(config, transport, rules, owned, touches, outbox, invalidations, views, counters, log,
        clock, ticker, runtime.waiter(), timeouts, new OwnerWrites.Engine() {
          @Override
          public NodeId buddy() {
            return buddy;
          }

          @Override
          public void fence(OwnedSession session, String reason) {
            ReplicationEngine.this.fence(session, reason);
          }

          @Override
          public void ended(OwnedSession session) {
            quarantine().forget(session.id());
            // Invalidation wins here too: no copy of this session at this epoch or older is stored or taken back in
            // here from now on, nor handed to a member that asks (see Migrations). A copy this node still held of it
            // (the backup it kept when it took the session over) goes now: handed off or adopted later, it brought
            // the ended session back (docs/protocol.md 11.2).
            backups().endedElsewhere(session.id(), session.epoch());
          }

          @Override
          public void idGivenUp(OwnedSession session, String oldId) {
            backups().endedElsewhere(oldId, session.epoch());
          }

          @Override
          public void protectedAnew(OwnedSession session, NodeId to) {
            tellIdsGivenUp(session, to);
          }

          @Override
          public boolean suspect(OwnedSession session) {
            quarantine().checkPause();
            return quarantine().isSuspect(session);
          }
        });
    this.stateTransfer =
        new StateTransfer(
            maintenance,
            new TokenBucket(lifetimes, config.stateTransferBytesPerSecond(), config.stateTransferBatchBytes() * 2L),
            config.stateTransferBatchBytes(),
            () -> Optional.ofNullable(buddy),
            transport::request,
            rules,
            new StateTransfer.Callbacks() {
              @Override
              public void protectedAt(OwnedSession session, NodeId to, long version) {
                onBulkAck(session, to, version);
              }

              @Override
              public void refused(OwnedSession session, NodeId to, Message.Nack refusal) {
                if (refusal.reason() == Message.Nack.Reason.STALE_EPOCH || refusal.reason() == Message.Nack.Reason.INVALIDATED) {
                  // As a refused update: the cluster moved on from this copy (taken over, or ended).
                  fence(session, "buddy " + to.value() + " refused its copy: " + refusal.reason() + " " + refusal.detail());
                  return;
                }
                counters.refusedByBuddy.increment();
                if (refusal.reason() == Message.Nack.Reason.BACKUP_STORE_FULL) {
                  // Stays marked for a full copy: the tick sends it again (paced by stateTransferRate) until the buddy
                  // has room or the ring names another buddy.
                  counters.backupRefusalsFull.increment();
                }
                log.warn("transfer-refused:" + to, "Buddy " + to.value() + " refused the copy of session [" + session.id()
                    + "]: " + refusal.reason() + " " + refusal.detail());
                owned.markUnprotected(session);
              }

              @Override
              public void skippedTooLarge(OwnedSession session, long wireBytes) {
                // Counted in sessionsTooLarge when its copy was built. Not re-sent every tick: it stays without a
                // backup (sessionsWithoutBackup) until a request changes it.
                log.warn("transfer-too-large:" + session.id(), "Session [" + session.id() + "] is not re-protected: its"
                    + " copy is " + wireBytes + " bytes without any attribute (its principal and notes), over"
                    + " maxSessionSize of " + config.maxSessionSize() + " bytes");
              }

              @Override
              public void failed(List<OwnedSession> sessions, NodeId to, Throwable cause) {
                counters.sendFailures.increment();
                log.warn("transfer:" + to, "State transfer of " + sessions.size() + " sessions to " + to + " failed: " + cause);
                sessions.forEach(owned::markUnprotected);
              }
            });
    this.quarantine = new Quarantine(local, config.pauseThreshold(), ticker, owned, locator, () -> view, counters,
        new Quarantine.Engine() {
          @Override
          public void fence(OwnedSession session, String reason) {
            ReplicationEngine.this.fence(session, reason);
          }

          @Override
          public void yieldTo(OwnedSession session, String reason) {
            // In this order: fenced, an update of the owner meets an inactive copy and is refused without a verdict
            // (IncomingRequests); then the adoption's refusal of the owner's epoch is lifted; only then is the copy
            // forgotten, and the owner's updates are stored here as a backup. Never the INVALIDATED refusal that would
            // make the owner drop the newest copy.
            if (session.fence()) {
              backups.stopRefusingBelow(session.id(), session.epoch());
              retireFenced(session, reason);
            }
          }

          @Override
          public void protect(OwnedSession session) {
            if (!session.isProtected()) {
              stateTransfer.enqueue(session);
            }
          }

          @Override
          public void adoptAbsentOwners(MembershipView current) {
            for (NodeId owner : backups.owners()) {
              if (!current.contains(owner)) {
                adoptAll(owner);
              }
            }
          }

          @Override
          public boolean heldFromADeadOwner(String id) {
            return backups.entry(id).map(held -> suspects.seenDying(held.owner())).orElse(false);
          }

          @Override
          public boolean lastSurvivor() {
            MembershipView current = viewWithoutSuspects();
            return current != null && current.memberIds().equals(List.of(local)) && suspects.departedUnseen().isEmpty();
          }
        });
    // After a view change, sessions reach the node the ring names as each member installs the view (a dead owner's
    // buddy adopts at once; a leaving node handed its sessions over before it left): the settle timeout, which bounds
    // how long members may disagree on the view, and at least a second. Until then "found nowhere" is not remembered.
    // Still on the time of day (docs/protocol.md 8.4): its window is read by tests that move a manual wall clock.
    this.unknown = new UnknownSessions(clock, max(config.settleTimeout(), Duration.ofSeconds(1)));
    this.leftovers = new LeftoverCopies(local, backups, locator, this::viewWithoutSuspects, this::adopt);
    this.migrations = new Migrations(config, transport, owned, backups, invalidations, quarantine, locator, stateTransfer,
        leftovers, rules, counters, log, unknown, clock, ticker, runtime.waiter(), new Migrations.Engine() {
          @Override
          public NodeId buddy() {
            return buddy;
          }

          @Override
          public MembershipView view() {
            // Without the suspects: a backup whose owner was refused may be handed over before the view drops it.
            return viewWithoutSuspects();
          }

          @Override
          public OwnedSession adopt(SessionSnapshot snapshot) {
            return ReplicationEngine.this.adopt(snapshot);
          }

          @Override
          public void retireFenced(OwnedSession session, String reason) {
            ReplicationEngine.this.retireFenced(session, reason);
          }

          @Override
          public boolean awaitGone(NodeId peer, long nanos) throws InterruptedException {
            return views.awaitUntil(() -> {
              MembershipView current = viewWithoutSuspects();
              return current == null || !current.contains(peer);
            }, nanos);
          }

          @Override
          public boolean seenDying(NodeId peer) {
            return suspects.seenDying(peer);
          }

          @Override
          public void releaseLater(OwnedSession session, NodeId former) {
            releaseAfterProtection.putIfAbsent(session, new Release(former, ticker.read(), true));
          }
        });
    this.incoming = new IncomingRequests(local, backups, owned, this::adoptHandoff, this::fence, migrations::migrateOut,
        quarantine::isSuspect, this::isMember, unknown::appeared, counters, log, new IncomingRequests.HandingOut() {
          @Override
          public void heldBy(NodeId from, String id, long epoch, boolean ended) {
            migrations.heldBy(from, id, epoch, ended);
          }

          @Override
          public Optional<SessionSnapshot> handing(String id) {
            return migrations.handing(id);
          }
        });
    this.handoff = new GracefulHandoff(local, transport, owned, rules, config.stateTransferBatchBytes(), counters, log,
        quarantine::forget, ticker, runtime.waiter());
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** The view replication works with: without the members the transport found gone ({@link SuspectedPeers}). */
  private MembershipView viewWithoutSuspects() {
    MembershipView current = view;
    return current == null ? null : suspects.withoutSuspects(current);
  }

  /** Starts the transport and membership and begins following views. */
  public void start() throws Exception {
    LOG.log(Level.INFO, "Tandem node {0} starting with {1}", local.value(), config.describe());
    transport.watchPeers(new PeerWatcher() {
      @Override
      public void peerRefused(NodeId peer, String detail) {
        onPeerRefused(peer, detail);
      }

      @Override
      public void peerConnected(NodeId peer) {
        onPeerConnected(peer);
      }
    });
    transport.start(incoming::handle);
    if (outbox != null) {
      outbox.start();
    }
    membership.start();
    quarantine.start();
    Duration pauseCheck = Duration.ofMillis(Math.max(10, config.pauseThreshold().toMillis() / 10));
    pauseWatch.scheduleAtFixedRate(quarantine::checkPause, pauseCheck, pauseCheck);
    membership.addViewListener(this::onView);
    Duration period = Duration.ofMillis(config.maintenanceInterval().toMillis());
    maintenance.scheduleWithFixedDelay(this::tickSafely, period, period);
  }

  public NodeId localNode() {
    return local;
  }

  public ReplicationConfig config() {
    return config;
  }

  /** The current buddy, or empty when this node is alone. */
  public Optional<NodeId> buddy() {
    return Optional.ofNullable(buddy);
  }

  /** The members of the view this node acts on (empty before the first view). */
  public List<NodeId> members() {
    MembershipView current = view;
    return current == null ? List.of() : current.memberIds();
  }

  // ---- owner side: the container reports session life cycle and requests -------------------------------------

  /**
   * A new session was created on this node; it is owned here at epoch 1 and its first flush sends it in full.
   * Returns the engine's handle on it, which the container keeps with its session.
   */
  public OwnedSession sessionCreated(String id, SessionSource source) {
    OwnedSession session = new OwnedSession(id, 1, 0, new SessionContent.Live(source));
    if (!owned.add(session)) {
      throw new IllegalStateException("Session [" + id + "] is already owned by this node");
    }
    unknown.appeared(id);
    return session;
  }

  /** {@code setAttribute} or {@code removeAttribute} was called (on any thread). */
  public void attributeChanged(OwnedSession session, String name) {
    session.attributeChanged(name);
  }

  /** {@link #attributeChanged(OwnedSession, String)} by id, for callers without the handle. */
  public void attributeChanged(String id, String name) {
    owned.get(id).ifPresent(s -> s.attributeChanged(name));
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
    return writes.flush(session, readNames);
  }

  /** {@link #flush(OwnedSession, Set)} by id, for callers without the handle; NOT_OWNED when not owned here. */
  public FlushOutcome flush(String id, Set<String> readNames) {
    return owned.get(id).map(s -> writes.flush(s, readNames)).orElse(FlushOutcome.NOT_OWNED);
  }

  /** The container changed the session's id (for example at login). */
  public FlushOutcome changeId(String oldId, String newId) {
    unknown.appeared(newId);
    return owned.get(oldId).map(s -> writes.changeId(s, oldId, newId)).orElse(FlushOutcome.NOT_OWNED);
  }

  /** {@link #changeId(String, String)} through the handle: NOT_OWNED once it is fenced or ended. */
  public FlushOutcome changeId(OwnedSession session, String newId) {
    unknown.appeared(newId);
    return session.isActive() ? writes.changeId(session, session.id(), newId) : FlushOutcome.NOT_OWNED;
  }

  /**
   * The application invalidated the session. The future completes when the buddy acknowledged the invalidation
   * (or this node is alone), or with UNCONFIRMED after the ack timeout; in both modes a request that invalidated
   * its session must not be answered 200 before it completes confirmed.
   */
  public CompletableFuture<FlushOutcome> invalidated(String id) {
    return owned.get(id).map(s -> writes.end(s, InvalidateReason.INVALIDATED))
        .orElse(CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED));
  }

  /** The container expired the session (expiry belongs to the owner). */
  public CompletableFuture<FlushOutcome> expired(String id) {
    return owned.get(id).map(s -> writes.end(s, InvalidateReason.EXPIRED))
        .orElse(CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED));
  }

  /**
   * {@link #invalidated(String)} or {@link #expired(String)} through the handle: NOT_OWNED once it is fenced or
   * ended, so a copy another node took over is never ended in its name.
   */
  public CompletableFuture<FlushOutcome> ended(OwnedSession session, boolean invalidated) {
    return session.isActive() ? writes.end(session, invalidated ? InvalidateReason.INVALIDATED : InvalidateReason.EXPIRED)
        : CompletableFuture.completedFuture(FlushOutcome.NOT_OWNED);
  }

  // ---- failover: requests for sessions this node does not hold live (see Migrations) ------------------------------

  /**
   * The bytes of a session this node can take over without asking anyone: one it adopted from a dead owner, or
   * one it holds as a backup (then it becomes the owner at a higher epoch, fencing the old owner). The container
   * deserializes it, then calls {@link #attach}.
   */
  public Optional<SessionSnapshot> promote(String id) {
    return migrations.promote(id);
  }

  /**
   * The bytes of a session wherever it is in the cluster: promoted locally when this node holds it, otherwise
   * located (without a route, every member is asked who holds it) and migrated in from its owner, or from its backup
   * when no owner answers; an id found nowhere is remembered for a while (see {@link UnknownSessions}). This node
   * owns it afterwards at a higher epoch; the former holder lets go. Blocks the calling request thread for at most
   * two ack timeouts. A session some member holds but would not or could not hand over, or that
   * a silent member may hold, is reported unavailable rather than absent, so that no request is handed a new, empty
   * session in its place.
   */
  public Acquisition acquire(String id) {
    return migrations.acquire(id, Optional.empty());
  }

  /**
   * {@link #acquire(String)} of a session id whose route names the node that last served it ({@code route}, a node
   * id; null or not a valid node id when there is none): the session is asked of that node and of its buddy first,
   * in one round trip where one of them holds it, and every member is asked only when that cannot settle it.
   */
  public Acquisition acquire(String id, String route) {
    return migrations.acquire(id, routeNode(route));
  }

  private static Optional<NodeId> routeNode(String route) {
    if (route == null || route.isEmpty() || route.length() > NodeId.MAX_LENGTH) {
      return Optional.empty();
    }
    try {
      return Optional.of(new NodeId(route));
    } catch (IllegalArgumentException notANodeId) {
      return Optional.empty(); // a forged route: no hint, the lookup asks every member
    }
  }

  /**
   * The container materialized a promoted session; from now on flushes read it from {@code source}. Returns the
   * engine's handle, for the container to keep with its session; empty if it was fenced or ended meanwhile.
   */
  public Optional<OwnedSession> attach(String id, SessionSource source) {
    Optional<OwnedSession> session = owned.get(id);
    session.ifPresent(s -> s.attach(source));
    return session;
  }

  public boolean owns(String id) {
    return owned.get(id).isPresent();
  }

  /**
   * Whether the session of this handle is still owned here (not fenced, ended or handed away): what {@link
   * #owns(String)} answers for its id, without a lookup or a lock.
   */
  public boolean owns(OwnedSession session) {
    return session.isActive();
  }

  /** The backup this node holds of another owner's session (bytes only), for tests and diagnostics. */
  public Optional<SessionSnapshot> backupOf(String id) {
    return backups.entry(id).map(BackupStore.BackupEntry::snapshot);
  }

  // ---- views ----------------------------------------------------------------------------------------------------

  private void onView(MembershipView next) {
    quarantine.checkPause(); // a view that arrives right after a pause must not be trusted to adopt from
    MembershipView previous = view;
    if (previous != null && next.viewId() <= previous.viewId()) {
      return;
    }
    Set<NodeId> stillHeard = droppedButStillHeard(previous, next); // before the transport lets go of them
    transport.updatePeers(next);
    synchronized (ringLock) {
      view = next;
      unknown.viewChanged(); // sessions move on a view change: what was found nowhere before may be somewhere now
      quarantine.viewChanged(previous, next, stillHeard);
      if (previous != null) {
        previous.members().stream().filter(m -> !m.id().equals(local) && !next.contains(m.id())).forEach(suspects::leftUnseen);
      }
      suspects.retainMembersOf(next);
      followRing(next); // SYNC writes waiting on a failed buddy retry with the buddy this view names
    }
    for (NodeId owner : backups.owners()) {
      if (!next.contains(owner)) {
        if (quarantine.active()) {
          LOG.log(Level.WARNING, "Node {0}: owner {1} left the view while this node is in quarantine after a pause; "
              + "its sessions are not adopted until the membership has settled", local.value(), owner.value());
        } else {
          adoptAll(owner);
        }
      }
    }
    owned.recoveryStarted();
  }

  /**
   * The members {@code next} drops that sent this node a frame within {@link #STILL_HEARD} over a connection still
   * open. The membership drops a member after seconds of silence (a frozen or cut-off one) or once its connections
   * closed (a killed or stopped one): one heard from a moment ago is alive, and the view is wrong about it.
   */
  private Set<NodeId> droppedButStillHeard(MembershipView previous, MembershipView next) {
    if (previous == null) {
      return Set.of();
    }
    Set<NodeId> heard = new HashSet<>();
    for (NodeId member : previous.memberIds()) {
      if (!member.equals(local) && !next.contains(member) && !suspects.isSuspected(member)
          && transport.heardFromWithin(member, STILL_HEARD)) {
        heard.add(member);
      }
    }
    return heard;
  }

  /**
   * The transport saw {@code peer}'s connection close and its redial refused: it is gone for replication now, before
   * the view confirms it (see {@link SuspectedPeers}). Sessions move on to the ring's next buddy as on a view change.
   */
  private void onPeerRefused(NodeId peer, String detail) {
    synchronized (ringLock) {
      MembershipView current = view;
      if (!suspects.suspect(peer, current)) {
        return;
      }
      LOG.log(Level.WARNING, "Node {0}: {1} is gone for replication ({2}); not waiting for the view to drop it",
          local.value(), peer.value(), detail);
      unknown.viewChanged(); // its backups may be handed over now: what was found nowhere may be somewhere
      followRing(current);
    }
    owned.recoveryStarted();
  }

  /** A suspected peer connected again: it is back in the ring it is a member of. */
  private void onPeerConnected(NodeId peer) {
    synchronized (ringLock) {
      if (!suspects.clear(peer) || view == null) {
        return;
      }
      LOG.log(Level.INFO, "Node {0}: {1} connected again; replicating to it as its view says", local.value(), peer.value());
      followRing(view);
    }
    owned.recoveryStarted();
  }

  /**
   * The buddy of {@code current} without the suspects; when it changed, every owned session is sent in full to the
   * new one (a suspect copy only once confirmed: it may be one the cluster ended), and a former buddy still alive
   * drops its copies once they are protected elsewhere. Wakes SYNC writes waiting for the ring to change.
   */
  @GuardedBy("ringLock")
  private void followRing(MembershipView current) {
    MembershipView replicating = suspects.withoutSuspects(current);
    NodeId oldBuddy = buddy;
    NodeId newBuddy = BuddyRing.buddyOf(replicating, local).orElse(null);
    buddy = newBuddy;
    views.changed();
    if (!Objects.equals(oldBuddy, newBuddy)) {
      LOG.log(Level.INFO, "Node {0}: buddy is now {1} in {2}{3}; re-protecting {4} sessions",
          local.value(), newBuddy == null ? "nobody" : newBuddy.value(), current,
          replicating == current ? "" : " (gone for replication: " + suspects.all() + ")", owned.size());
      for (OwnedSession session : owned.all()) {
        owned.markUnprotected(session);
        if (oldBuddy != null) {
          // Also when it left the view (paused, cut off): it keeps its copies, and comes back with them.
          releaseAfterProtection.put(session, new Release(oldBuddy, ticker.read(), false));
        }
        if (!quarantine.isSuspect(session.id())) {
          stateTransfer.enqueue(session);
        }
      }
    }
  }

  /**
   * Whether a request for session {@code id} may run here now; see {@link Quarantine#admit}. Outside quarantine it
   * always may.
   */
  public Admission admit(String id) {
    return quarantine.admit(id);
  }

  /**
   * {@link #admit(String)} of a session the container found owned here through its handle: no lookup, and no lock
   * unless this node was paused or cut off.
   */
  public Admission admit(OwnedSession session) {
    return quarantine.admit(session);
  }

  private void adoptAll(NodeId deadOwner) {
    if (leftovers.isLeftover(deadOwner)) {
      // The ring names another member heir: these copies may be older than the owner's last 200s (see LeftoverCopies).
      LOG.log(Level.INFO, "Node {0}: owner {1} is gone; the copies held here are left from when this node was its buddy,"
          + " and are adopted only if no other member holds them as new", local.value(), deadOwner.value());
      maintenance.execute(() -> confirmLeftovers(view)); // dropped once the engine closed: nothing is adopted then
      return;
    }
    List<BackupStore.BackupEntry> held = backups.heldFor(deadOwner);
    LOG.log(Level.INFO, "Node {0}: owner {1} is gone; adopting its {2} sessions", local.value(), deadOwner.value(), held.size());
    for (BackupStore.BackupEntry entry : held) {
      backups.take(entry.snapshot().id()).ifPresent(taken -> adopt(taken.snapshot()));
    }
  }

  /** Takes ownership of a session from its bytes at the next epoch, and queues it for this node's buddy. */
  private OwnedSession adopt(SessionSnapshot snapshot) {
    // Whatever way it is adopted (promoted, a dead owner's, handed off), a former owner's copy at the old epoch that
    // reaches this node later, as it wakes from a pause, must be refused here; stored as its backup, it would come
    // back after this node ended the session.
    backups.refuseUpTo(snapshot.id(), snapshot.epoch());
    OwnedSession session =
        new OwnedSession(snapshot.id(), snapshot.epoch() + 1, snapshot.version(), new SessionContent.Stored(snapshot));
    if (!owned.add(session)) {
      return owned.get(snapshot.id()).orElse(session);
    }
    unknown.appeared(snapshot.id());
    counters.sessionsAdopted.increment();
    stateTransfer.enqueue(session);
    return session;
  }

  /**
   * Adopts a session its leaving owner handed over. The owner captured it before the handoff was sent, and a request
   * still running there may have flushed a later version to this node, its buddy, in between (and been answered 200):
   * the newer of the two copies is adopted, never the older one over an acknowledged change.
   */
  private void adoptHandoff(SessionSnapshot handed) {
    SessionSnapshot newest = backups.take(handed.id()).map(BackupStore.BackupEntry::snapshot)
        .filter(held -> held.epoch() > handed.epoch() || held.epoch() == handed.epoch() && held.version() > handed.version())
        .orElse(handed);
    adopt(newest);
  }

  /**
   * Before a graceful shutdown: hands every owned session, in full and as it is now, to the buddy, which owns them
   * from then on (at the next epoch) and protects them on its own buddy. Returns the number handed over; sessions
   * the buddy did not acknowledge within the timeout stay with their backups, as after a crash.
   */
  public int handOff(Duration timeout) {
    migrations.leaving(timeout.toNanos());
    NodeId to = buddy;
    return to == null ? 0 : handoff.handOff(to, timeout);
  }

  // ---- sending and replies ----------------------------------------------------------------------------------

  private void fence(OwnedSession session, String reason) {
    if (session.fence()) {
      retireFenced(session, reason);
    }
  }

  /** Forgets a session that was just fenced here, and tells the container to drop its copy. */
  private void retireFenced(OwnedSession session, String reason) {
    owned.retire(session);
    migrations.fencedHere(session.id());
    quarantine.forget(session.id());
    counters.sessionsFenced.increment();
    LOG.log(Level.WARNING, "Session [{0}] is owned by another node now; dropping it here ({1})", session.id(), reason);
    listener.sessionFenced(session.id(), reason);
  }

  private OwnerWrites writes() {
    return writes;
  }

  private Quarantine quarantine() {
    return quarantine;
  }

  private BackupStore backups() {
    return backups;
  }

  private void onBulkAck(OwnedSession session, NodeId to, long version) {
    counters.acks.increment();
    if (to.equals(buddy) && owned.markProtected(session, version)) {
      tellIdsGivenUp(session, to);
    }
  }

  /**
   * See {@link OwnerWrites.Engine#protectedAnew}: each id the session gave up ended, for good; and the copy the holder
   * of a session migrated in keeps is released now, not at the next tick: it keeps its copy and its buddy's until then
   * (see {@link Handovers}), and its requests for the session are answered 503 meanwhile.
   */
  private void tellIdsGivenUp(OwnedSession session, NodeId to) {
    for (String given : session.formerIds()) {
      transport.request(to, new Message.Invalidate(given, session.epoch(), session.version(), InvalidateReason.INVALIDATED));
    }
    Release release = releaseAfterProtection.get(session);
    MembershipView current = view;
    if (release != null && release.atOnce() && current != null) {
      releaseOne(session, release, current, to, ticker.read());
    }
  }

  /**
   * Once a session is protected on its new buddy, or no longer owned here (ended, handed on, fenced), the previous
   * buddy (still alive after a join moved the ring) drops its now-redundant copy. Not before: until then that copy
   * is the only backup. A release lost on the way is
   * sent again by the next tick, as long as the former buddy is a member: a copy left behind stops receiving updates
   * but lives on (its owner is alive), and a stale copy held by a member is one that a later takeover could find.
   */
  private void releaseFormerBackups(MembershipView current, NodeId to) {
    // Over a copy of the ledger: a release that fails at once (a peer whose redial was refused) puts its entry back
    // from inside the loop, and an iterator over the live map may meet it again, and again: the maintenance thread
    // spun so, found by the simulation (SimulationSeedsTest).
    long now = ticker.read();
    for (Map.Entry<OwnedSession, Release> entry : List.copyOf(releaseAfterProtection.entrySet())) {
      releaseOne(entry.getKey(), entry.getValue(), current, to, now);
    }
  }

  /** One entry of the ledger of {@link #releaseFormerBackups}: released if its time has come. */
  private void releaseOne(OwnedSession session, Release release, MembershipView current, NodeId to, long now) {
    NodeId former = release.former();
    // A session that ended, moved on or was fenced before its new buddy had it is released too: its former buddy is
    // no longer its buddy, nobody else would ever tell it, and a copy left there would be adopted, stale or ended,
    // the day its owner leaves the view.
    if (!session.isActive() || session.isProtected()) {
      if (!current.contains(former) && now - release.sinceNanos() < releaseWaitNanos) {
        // Away (paused, cut off): released when it is back, for as long as tombstones live. Forgotten, the copy it
        // kept of a session that ended meanwhile was adopted, ended, the day this node stopped (docs/protocol.md
        // 11.2; the simulation found it).
        return;
      }
      if (!releaseAfterProtection.remove(session, release)) {
        return;
      }
      // The current buddy keeps the copy of a session still owned here; of one that moved on it keeps nothing. Of
      // one that ended, the former buddy keeps that it ended.
      InvalidateReason reason = session.isGone() ? InvalidateReason.INVALIDATED : InvalidateReason.RELEASED;
      if (current.contains(former) && (!session.isActive() || !former.equals(to))) {
        transport.request(former, new Message.Invalidate(session.id(), session.epoch(), session.version(), reason))
            .whenComplete((reply, failure) -> {
              if (failure != null) {
                releaseAfterProtection.putIfAbsent(session, release); // the next tick sends it again
              }
            });
        // An id a login gave up while the release waited: the former buddy may hold its copy under that id, which
        // it would adopt as a live session the day this node died (docs/protocol.md 11.2). It ended, for good.
        for (String given : session.formerIds()) {
          transport.request(former, new Message.Invalidate(given, session.epoch(), session.version(), InvalidateReason.INVALIDATED));
        }
      }
    }
  }

  // ---- maintenance --------------------------------------------------------------------------------------------

  /**
   * Runs one maintenance tick on the maintenance scheduler and waits for it; for tests that move a manual clock on
   * the production schedulers. It blocks: on a {@code ManualScheduler} a test advances the scheduler instead.
   */
  public void runMaintenance() {
    if (closed) {
      throw new RejectedExecutionException("engine " + local.value() + " is closed"); // as its executor refused before
    }
    try {
      CompletableFuture.runAsync(this::tick, maintenance::execute).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException("maintenance tick failed", e.getCause());
    }
  }

  /**
   * In quarantine, a member the view dropped before this node saw it die may be dead or beyond a cut: an owner of
   * backups held here (any departed member, while this node is alone) is dialled once per tick, and one whose host
   * refuses is dead (its backups may be taken over, see {@link Migrations}). Without this, a buddy paused long enough to be dropped, whose owner was then killed,
   * would refuse the owner's sessions for as long as it saw no other member.
   */
  private void dialDepartedOwners() {
    Set<NodeId> owners = backups.owners();
    MembershipView current = viewWithoutSuspects();
    boolean alone = current != null && current.memberIds().equals(List.of(local));
    for (Member departed : suspects.departedUnseen()) {
      // Alone, every one is dialled: if all of them died, this node is the last one left (Quarantine's lastSurvivor).
      if ((alone || owners.contains(departed.id())) && transport.refusesConnections(departed)) {
        suspects.refusedAfterLeaving(departed.id());
        LOG.log(Level.WARNING, "Node {0}: {1}, which left the view, refuses connections at {2}: it died. The sessions "
            + "this node holds copies of may be taken over once no other member knows them", local.value(),
            departed.id().value(), departed.transportAddress());
      }
    }
  }

  private void confirmLeftovers(MembershipView current) {
    if (current != null && !quarantine.active()) {
      leftovers.confirmDeparted(current);
    }
  }

  /**
   * Whether {@code node} is in this node's current view; true before the first view arrived (a node that just started
   * cannot tell yet, and took its buddy's copies before it could).
   */
  private boolean isMember(NodeId node) {
    MembershipView current = view;
    return current == null || current.contains(node);
  }

  private void tickSafely() {
    try {
      tick();
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "Tandem maintenance tick failed; it will run again", e);
    }
  }

  private void tick() {
    long now = clock.millis(); // the time of day: touch deadlines, and an adopted session's expiry (session times)
    NodeId to = buddy;
    MembershipView current = view;
    if (quarantine.active()) {
      dialDepartedOwners();
    }
    quarantine.tick(current);
    List<Message.Touch> due = touches.drainIfDue(now);
    if (!due.isEmpty() && to != null) {
      counters.touchBatchesSent.increment();
      counters.touchesSent.add(due.size());
      transport.request(to, new Message.TouchBatch(due));
    }
    confirmLeftovers(current);
    migrations.tick(); // the handovers no requester confirmed within its wait
    if (current != null) {
      releaseFormerBackups(current, to);
      long grace = config.touchLagCap().plus(config.orphanGrace()).toMillis();
      counters.backupsExpired.add(backups.expireOrphans(current::contains, grace).size());
    }
    for (OwnedSession session : owned.all()) {
      // Against the last access its former owner sent, which lags by up to touchLagCap (a session read often and
      // written rarely reaches its buddy as coalesced touches): without that grace it expired right after a failover
      // while its user was active (issue 27 item 4).
      if (session.isStored() && session.metadata().isExpiredAt(now, config.touchLagCap().toMillis())) {
        writes.end(session, InvalidateReason.EXPIRED);
      } else if (to != null && session.needsFull() && (outbox == null || !outbox.isQueued(session))) {
        stateTransfer.enqueue(session);
      }
    }
    if (to != null) {
      for (Message.Invalidate invalidate : invalidations.all()) {
        writes.sendInvalidation(to, invalidate);
      }
    }
  }

  // ---- figures --------------------------------------------------------------------------------------------------

  public ReplicationStats stats() {
    BackupStore.BackupStats backup = backups.stats();
    return new ReplicationStats(
        owned.size(),
        owned.unprotectedCount(),
        owned.lastRecovery(),
        backup.sessions(),
        backup.bytesHeld(),
        backup.maxBytes(),
        counters.fullsSent.sum(),
        counters.deltasSent.sum(),
        counters.touchBatchesSent.sum(),
        counters.touchesSent.sum(),
        counters.invalidationsSent.sum(),
        counters.payloadBytesSent.sum(),
        counters.acks.sum(),
        counters.gapResends.sum(),
        counters.ackTimeouts.sum(),
        counters.sendFailures.sum(),
        counters.refusedByBuddy.sum(),
        counters.sessionsFenced.sum(),
        counters.asyncOverflows.sum(),
        outbox == null ? 0 : outbox.size(),
        counters.unsetMutationsDetected.sum(),
        counters.attributesNotReplicable.sum(),
        counters.stateTransferSessions.sum(),
        counters.stateTransferBytes.sum(),
        counters.sessionsAdopted.sum(),
        counters.sessionsPromoted.sum(),
        counters.sessionsMigratedIn.sum(),
        counters.sessionsMigratedOut.sum(),
        counters.sessionsHandedOff.sum(),
        counters.backupsExpired.sum(),
        counters.pausesDetected.sum(),
        counters.unconfirmedWrites.sum(),
        counters.slowAcks.sum(),
        counters.misjudgedViews.sum(),
        counters.sessionsTooLarge.sum(),
        counters.backupRefusalsFull.sum(),
        backup.refusedFull());
  }

  /**
   * How many session ids this node remembers as held nowhere in the cluster (a request for one asks no member); for
   * figures and tests.
   */
  public int unknownSessionsRemembered() {
    return unknown.size();
  }

  /** Owned sessions of which the current buddy holds no copy right now. */
  public int sessionsWithoutBackup() {
    return owned.unprotectedCount();
  }

  /** How long the last view change took to get back to full protection; empty while none has completed. */
  public Optional<Duration> lastReprotectionTime() {
    return owned.lastRecovery();
  }

  @Override
  public void close() {
    if (outbox != null) {
      outbox.close();
    }
    closed = true;
    maintenance.close();
    pauseWatch.close();
    membership.close();
    transport.close();
  }

  /**
   * A former buddy (or holder) that keeps a copy of a session until it is released, and since when (the engine's
   * ticker); {@code atOnce} when it is released as soon as the buddy acknowledges the session rather than at the next
   * tick: a holder waiting for its handover to end (see {@link Handovers}).
   */
  private record Release(NodeId former, long sinceNanos, boolean atOnce) {}
}
