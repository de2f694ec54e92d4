package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.EngineRuntime;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The parts of one {@link ReplicationEngine}, built in the order they need each other, and the answers to what each
 * part asks of the others: {@link Quarantine}, {@link Migrations} and {@link OwnerWrites} each ask through their own
 * {@code Engine} interface, implemented here by handing every question to the part that owns the answer. Where two
 * parts need each other (fencing needs {@link Migrations}, which needs {@link Quarantine}, which fences), the one
 * built first is given a method of this class, which reads the other's field only when it is called, after the
 * constructor.
 *
 * <p>It also states, once, the order of the work of a maintenance tick and of a view change: the deterministic
 * simulation's runs depend on it.
 *
 * <p>Implementation notes: every field is final and set by the constructor, which starts nothing (no view, peer event
 * or tick reaches a part before {@link ReplicationEngine#start}); each part's implementation notes say which thread or
 * lock owns its state.
 */
final class EngineParts implements Quarantine.Engine, Migrations.Engine, OwnerWrites.Engine {
  final ReplicationConfig config;
  final Transport transport;
  final Membership membership;
  final NodeId local;
  final ReplicationCounters counters = new ReplicationCounters();
  /** Invalidations the member holding the copy has not acknowledged yet, sent again by the tick. */
  private final PendingInvalidations invalidations;
  final OwnedSessions owned;
  final BackupStore backups;
  final UnknownSessions unknown;
  final RingTracker ring;
  final Maintenance maintenance;
  /**
   * The pause check's own lane (a thread in production). On the maintenance thread it waited behind ticks, which
   * take each session's lock in turn: a tick held up by busy sessions looked like a JVM pause and put the node in
   * quarantine.
   */
  final Scheduler pauseWatch;
  /** The ASYNC queue, or null in SYNC mode. */
  final AsyncOutbox outbox;
  final StateTransfer stateTransfer;
  final Quarantine quarantine;
  final Adoption adoption;
  final Reprotection reprotection;
  final Migrations migrations;
  final Fencing fencing;
  final OwnerWrites writes;
  final IncomingRequests incoming;
  final GracefulHandoff handoff;
  private final TransferOutcomes outcomes;

  EngineParts(ReplicationConfig config, Transport transport, Membership membership, AttributeCodec codec,
      EngineRuntime runtime, ReplicationListener listener, ConcurrentHashMap<String, OwnedSession> ownedById) {
    this.config = config;
    this.transport = transport;
    this.membership = membership;
    this.local = transport.localNode();
    Ticker ticker = runtime.ticker();
    InstantSource clock = runtime.wallClock();
    RateLimitedLog log = new RateLimitedLog(ReplicationEngine.LOG, ticker::read);
    FlushRules rules = new FlushRules(config, codec, listener, counters, log);
    this.owned = new OwnedSessions(clock, ownedById);
    // Lifetimes (tombstones, handed-away ids, the transfer rate) on the ticker, session times on the wall clock: a
    // clock step dropped tombstones at once, or kept them for as long as the step (docs/protocol.md 8.4).
    InstantSource lifetimes = ticker.asLocalClock();
    this.backups = new BackupStore(clock, lifetimes, config.tombstoneTtl(), config.maxBackupBytes());
    this.invalidations = new PendingInvalidations(local, ticker, config.tombstoneTtl());
    // After a view change, sessions reach the node the ring names as each member installs the view (a dead owner's
    // buddy adopts at once; a leaving node handed its sessions over before it left): the settle timeout, which bounds
    // how long members may disagree on the view, and at least a second. Until then "found nowhere" is not remembered.
    // Still on the time of day (docs/protocol.md 8.4): its window is read by tests that move a manual wall clock.
    this.unknown = new UnknownSessions(clock, max(config.settleTimeout(), Duration.ofSeconds(1)));
    this.ring = new RingTracker(local, transport, owned, unknown, ticker, runtime.waiter());
    // A member whose host refused the redial holds nothing any more: asking it would only make a lookup "unknown".
    Locator locator = new Locator(local, transport, ring::replicating, config.ackTimeout(), ticker, runtime.waiter());
    Scheduler maintenanceLane = runtime.schedulers().create(Scheduler.Lane.MAINTENANCE, local);
    this.pauseWatch = runtime.schedulers().create(Scheduler.Lane.PAUSE_WATCH, local);
    // Not closed with the engine: a timeout armed before close still completes the future it guards.
    Scheduler timeouts = runtime.schedulers().create(Scheduler.Lane.TIMEOUTS, local);
    this.maintenance = new Maintenance(maintenanceLane, local, clock, ring);
    this.outbox =
        config.mode() == ReplicationMode.ASYNC
            ? new AsyncOutbox(config.asyncQueueCapacity(), AsyncOutbox.MAX_IN_FLIGHT,
                // every request fails by the transport's timeout (the ack timeout, as the managers configure it)
                config.ackTimeout().toNanos() * 2, ticker, runtime.schedulers().create(Scheduler.Lane.ASYNC_SENDER, local),
                runtime.schedulers().create(Scheduler.Lane.ASYNC_REPLIES, local), this::sendQueued)
            : null;
    this.outcomes = new TransferOutcomes(ring, owned, transport, config, counters, log, this::fence,
        this::releaseHolderOnceProtected);
    this.stateTransfer = new StateTransfer(maintenanceLane,
        new TokenBucket(lifetimes, config.stateTransferBytesPerSecond(), config.stateTransferBatchBytes() * 2L),
        config.stateTransferBatchBytes(), ring::buddyIfAny,
        // As patient as a SYNC write (ackTimeout + settleTimeout): at the transport's ackTimeout a buddy busy applying
        // a large batch timed it out, and it was marked unprotected and sent again whole (docs/protocol.md 8.5).
        (to, batch) -> transport.request(to, batch, config.ackTimeout().plus(config.settleTimeout())), rules, outcomes);
    this.quarantine =
        new Quarantine(local, config.pauseThreshold(), ticker, owned, locator, ring::view, counters, this);
    this.adoption = new Adoption(local, config, backups, owned, unknown, counters, stateTransfer, ring, quarantine,
        locator, maintenance, this::releaseFormerOwner);
    this.migrations = new Migrations(config, transport, owned, backups, invalidations, quarantine, locator,
        stateTransfer, adoption.leftovers(), rules, counters, log, unknown, clock, ticker, runtime.waiter(), this);
    this.reprotection = new Reprotection(owned, quarantine, stateTransfer, transport, ticker, config.tombstoneTtl(),
        id -> migrations.handing(id).isPresent(), this::fence);
    this.fencing = new Fencing(owned, migrations, quarantine, backups, counters, listener);
    TouchCoalescer touches = new TouchCoalescer();
    this.writes = new OwnerWrites(config, transport, rules, owned, touches, outbox, invalidations, ring.changes(),
        counters, log, clock, ticker, runtime.waiter(), timeouts, this);
    this.incoming = new IncomingRequests(local, backups, owned, adoption::adoptHandoff, this::fence,
        migrations::migrateOut, quarantine::isSuspect, ring::isMember, unknown::appeared, counters, log,
        migrations);
    this.handoff = new GracefulHandoff(local, transport, owned, rules, config.stateTransferBatchBytes(), counters, log,
        session -> quarantine.forget(session, session.id()), ticker, runtime.waiter());

    // A view change, under the ring lock: the quarantine hears of the view (after UnknownSessions, which RingTracker
    // tells itself); then, if the buddy changed, every owned session is re-protected. Adoption follows, outside the
    // lock (see onView).
    ring.followViews(quarantine::viewChanged);
    ring.followBuddy(reprotection::buddyChanged);

    // A maintenance tick, in this order.
    OwnerUpkeep upkeep =
        new OwnerUpkeep(config, transport, counters, touches, owned, writes, outbox, stateTransfer, invalidations);
    maintenance.register(adoption::dialDepartedOwners); // in quarantine only
    maintenance.register(tick -> quarantine.tick(tick.view()));
    maintenance.register(upkeep::sendTouches);
    maintenance.register(adoption::confirmLeftovers);
    maintenance.register(adoption::adoptDeferred); // copies confirmed to their owner a moment before it left
    maintenance.register(reprotection::releaseFormerBackups);
    maintenance.register(tick -> migrations.tick()); // the handovers no requester confirmed within its wait
    maintenance.register(adoption::expireOrphans);
    maintenance.register(upkeep::sweepOwned);
    maintenance.register(upkeep::resendInvalidations);
  }

  /**
   * A new view, in this order: a pause that just ended is noticed (a view that arrives right after one must not be
   * trusted to adopt from); the ring installs the view (under its lock: the quarantine hears of it first, then the
   * buddy follows and sessions are re-protected on it); the backups of the owners it dropped are adopted; the
   * recovery clock starts.
   */
  void onView(MembershipView next) {
    quarantine.checkPause();
    MembershipView previous = ring.view();
    if (ring.install(next)) {
      adoption.ownersLeft(previous, next);
      owned.recoveryStarted();
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** The ASYNC queue's sender: {@link OwnerWrites#sendQueued}. */
  private CompletionStage<?> sendQueued(OwnedSession session, Object item, boolean more) {
    return writes.sendQueued(session, item, more);
  }

  // ---- what the parts ask of each other ---------------------------------------------------------------------------

  /** Quarantine, OwnerWrites, StateTransfer's outcomes, IncomingRequests: another node owns the session now. */
  @Override
  public void fence(OwnedSession session, String reason) {
    fencing.fence(session, reason);
  }

  @Override
  public void yieldTo(OwnedSession session, String reason) {
    // Its releases go first, while it is still suspect (the ledger skips suspects), and again after: a buddy change in
    // between adds one for every session still owned (11.3.46).
    reprotection.forget(session);
    fencing.yieldTo(session, reason);
    reprotection.forget(session);
  }

  @Override
  public void retireFenced(OwnedSession session, String reason) {
    fencing.retire(session, reason);
  }

  @Override
  public void protect(OwnedSession session) {
    reprotection.protect(session);
  }

  @Override
  public void adoptAbsentOwners(MembershipView current) {
    adoption.adoptAbsentOwners(current);
  }

  @Override
  public boolean heldFromADeadOwner(String id) {
    return adoption.heldFromADeadOwner(id);
  }

  @Override
  public boolean lastSurvivor() {
    return ring.lastSurvivor();
  }

  /** Migrations and OwnerWrites: the current buddy, or null when this node is alone. */
  @Override
  public NodeId buddy() {
    return ring.buddy();
  }

  /**
   * OwnerWrites: the membership's view (suspects included) lists this node alone, or there is none yet; and this node is
   * not in quarantine. A view that shrank to this node within moments, or dropped members still sending it traffic,
   * may be the cut-off side's: a write admitted before that view came and answered "kept, alone" after it was lost at
   * the merge, the other side having taken the session over (the hang-owner drill through httpd, docs/protocol.md
   * 11.3.42). In quarantine such a write waits as any write without a buddy does, and ends 503 if none comes.
   */
  @Override
  public boolean aloneInView() {
    MembershipView current = ring.view();
    return (current == null || current.memberIds().equals(List.of(local))) && !quarantine.active();
  }

  /**
   * Migrations: the view without the suspects (a backup whose owner was refused may be handed over before the view
   * drops it).
   */
  @Override
  public MembershipView view() {
    return ring.replicating();
  }

  @Override
  public OwnedSession adopt(SessionSnapshot snapshot) {
    return adoption.adopt(snapshot);
  }

  @Override
  public Optional<OwnedSession> adoptBackup(String id, Predicate<BackupStore.BackupEntry> eligible) {
    return adoption.adoptBackup(id, eligible);
  }

  @Override
  public boolean awaitGone(NodeId peer, long nanos) throws InterruptedException {
    return ring.awaitGone(peer, nanos);
  }

  @Override
  public boolean seenDying(NodeId peer) {
    return ring.seenDying(peer);
  }

  @Override
  public void releaseLater(OwnedSession session, NodeId former) {
    reprotection.releaseLater(session, former);
  }

  @Override
  public void ended(OwnedSession session) {
    quarantine.forget(session, session.id());
    // Invalidation wins here too: no copy of this session at this epoch or older is stored or taken back in here from
    // now on, nor handed to a member that asks (see Migrations). A copy this node still held of it (the backup it kept
    // when it took the session over) goes now: handed off or adopted later, it brought the ended session back
    // (docs/protocol.md 11.2).
    backups.endedElsewhere(session.id(), session.epoch());
  }

  @Override
  public void idGivenUp(OwnedSession session, String oldId) {
    backups.endedElsewhere(oldId, session.epoch());
  }

  /** See {@link Adoption}'s {@code releaseFormerOwner}: the ledger's, as for a holder a session was migrated from. */
  private void releaseFormerOwner(OwnedSession session, NodeId former) {
    reprotection.releaseLater(session, former);
  }

  /** See {@link Reprotection#protectedAnew}: a holder the session was migrated from is released at once. */
  private void releaseHolderOnceProtected(OwnedSession session, NodeId to) {
    reprotection.protectedAnew(session, to, ring.view());
  }

  @Override
  public void protectedAnew(OwnedSession session, NodeId to, CompletableFuture<Boolean> formerIdsEnded) {
    outcomes.tellIdsGivenUp(session, to, formerIdsEnded);
  }

  @Override
  public boolean suspect(OwnedSession session) {
    quarantine.checkPause();
    return quarantine.isSuspect(session);
  }
}
