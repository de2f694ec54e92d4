package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Takes sessions over from their bytes, and looks after the backups held here of owners that left. A session is
 * adopted at the next epoch ({@link #adopt}): a dead owner's backups by the heir the ring names, a leaving owner's
 * handoff, a promotion or migration ({@link Migrations}), a leftover copy no other member holds ({@link
 * LeftoverCopies}, which this class keeps). The maintenance tick dials departed owners while this node is in
 * quarantine, confirms leftover copies, and expires backups whose owner is gone and whose idle time has run out.
 *
 * <p>Implementation notes: its state is two concurrent maps: {@code departedInQuarantine}, written on the membership's
 * thread while this node is in quarantine and read and cleared on the maintenance thread when it lifts, and {@code
 * deferred}, written on the membership's and the maintenance thread and drained on the latter;
 * {@link LeftoverCopies} is stateless. What it takes over is claimed in {@link OwnedSessions} (concurrent) and refused
 * at the old epoch by the {@link BackupStore}. Called on the
 * membership's thread (a view change), request threads (promotion, migration), transport threads (a handoff) and the
 * maintenance thread (the quarantine lifted, the tick); nothing here holds a lock across a send.
 */
final class Adoption {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final NodeId local;
  private final ReplicationConfig config;
  private final BackupStore backups;
  private final OwnedSessions owned;
  private final UnknownSessions unknown;
  private final ReplicationCounters counters;
  private final StateTransfer stateTransfer;
  private final RingTracker ring;
  private final Quarantine quarantine;
  private final Maintenance maintenance;
  private final LeftoverCopies leftovers;
  /**
   * Puts a departed owner into the release ledger of a session adopted from it ({@link Reprotection#releaseLater}):
   * released there once it is back in the view, it is fenced if it still took itself for the owner.
   */
  private final java.util.function.BiConsumer<OwnedSession, NodeId> releaseFormerOwner;
  /**
   * Owners of backups held here that left the view or restarted while this node was in quarantine, with the run
   * (incarnation) the view listed before: when the quarantine lifts, one listed again under another run came back
   * without its sessions, and its copies here are nobody's (docs/protocol.md 11.3.26).
   */
  private final Map<NodeId, Long> departedInQuarantine = new ConcurrentHashMap<>();
  /**
   * Departed owners some of whose copies were not adopted yet because the owner had them confirmed here a moment
   * before it left ({@link BackupStore.BackupEntry#confirmedToOwnerWithin}), with the run whose copies they are
   * ({@link #UNKNOWN_RUN} if not known): adopted by the maintenance tick once that lease ran out, unless the owner is
   * back under the same run. Written on the membership's and the maintenance thread, read on the latter.
   */
  private final Map<NodeId, Long> deferred = new ConcurrentHashMap<>();
  private static final long UNKNOWN_RUN = Long.MIN_VALUE;

  Adoption(NodeId local, ReplicationConfig config, BackupStore backups, OwnedSessions owned, UnknownSessions unknown,
      ReplicationCounters counters, StateTransfer stateTransfer, RingTracker ring, Quarantine quarantine,
      Locator locator, Maintenance maintenance, java.util.function.BiConsumer<OwnedSession, NodeId> releaseFormerOwner) {
    this.releaseFormerOwner = releaseFormerOwner;
    this.local = local;
    this.config = config;
    this.backups = backups;
    this.owned = owned;
    this.unknown = unknown;
    this.counters = counters;
    this.stateTransfer = stateTransfer;
    this.ring = ring;
    this.quarantine = quarantine;
    this.maintenance = maintenance;
    this.leftovers = new LeftoverCopies(local, backups, locator, ring::replicating, this::adoptLeftover);
  }

  LeftoverCopies leftovers() {
    return leftovers;
  }

  /** Takes ownership of a session from its bytes at the next epoch, and queues it for this node's buddy. */
  OwnedSession adopt(SessionSnapshot snapshot) {
    // Whatever way it is adopted (promoted, a dead owner's, handed off), a former owner's copy at the old epoch that
    // reaches this node later, as it wakes from a pause, must be refused here; stored as its backup, it would come
    // back after this node ended the session.
    backups.refuseUpTo(snapshot.id(), snapshot.epoch());
    OwnedSession session =
        new OwnedSession(snapshot.id(), Claims.from(snapshot.epoch()), snapshot.version(), new SessionContent.Stored(snapshot));
    if (!owned.add(session)) {
      return owned.get(snapshot.id()).orElse(session);
    }
    unknown.appeared(snapshot.id());
    counters.sessionsAdopted.increment();
    stateTransfer.enqueue(session);
    return session;
  }

  /**
   * Adopts this node's backup of {@code id} at the next epoch if {@code eligible} holds for it. The session is owned
   * here before its copy leaves the store, so that a request, a {@code Locate} or a {@code Migrate} looking for it in
   * between finds the one or the other. Taken out of the store first, the copy was in neither place for a moment: a
   * request on this node that looked then asked the cluster, which answered "nowhere", and the user got a new, empty
   * session in place of the one being adopted (the rolling-upgrade drill, in a fresh-clone CI run). The owner's
   * updates at the copy's epoch are refused before the copy is read for the last time, so the session adopted holds
   * every change this store acknowledged.
   *
   * @return the session owned here now (by this call, or by another that adopted it first); empty when no eligible
   *     copy is held
   */
  Optional<OwnedSession> adoptBackup(String id, Predicate<BackupStore.BackupEntry> eligible) {
    Optional<BackupStore.BackupEntry> seen = backups.entry(id).filter(eligible);
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    NodeId owner = seen.get().owner();
    long epoch = seen.get().snapshot().epoch();
    if (!backups.refuseUpToUnlessConfirmed(id, epoch, config.pauseThreshold())) {
      // Confirmed to its owner a moment ago (back from a pause, it serves the session on that answer for a lease):
      // not claimed until the lease ran out (11.3.13). The caller defers, or answers 503.
      return Optional.empty();
    }
    Optional<BackupStore.BackupEntry> last = backups.entry(id)
        .filter(held -> held.owner().equals(owner) && held.snapshot().epoch() == epoch)
        .filter(eligible);
    if (last.isEmpty()) {
      return owned.get(id); // adopted by another thread meanwhile, or dropped (released, ended)
    }
    OwnedSession session = adopt(last.get().vouchedSnapshot(accessLagMillis()));
    backups.claimedHere(id, epoch);
    return Optional.of(session);
  }

  /**
   * {@link #adoptBackup} for a copy {@link LeftoverCopies} confirmed: its owner goes into the release ledger, as a dead
   * owner's does in {@link #adoptAll} (alive beyond a cut, or back from a pause, it is told and lets go).
   */
  private Optional<OwnedSession> adoptLeftover(String id, Predicate<BackupStore.BackupEntry> eligible) {
    Optional<NodeId> owner = backups.entry(id).filter(eligible).map(BackupStore.BackupEntry::owner);
    Optional<OwnedSession> adopted = adoptBackup(id, eligible);
    if (adopted.isPresent() && owner.isPresent() && !owner.get().equals(local)) {
      releaseFormerOwner.accept(adopted.get(), owner.get());
    }
    return adopted;
  }

  /**
   * How long an access may take to reach the buddy (6.9): the touch lag's bound, then up to one tick before the
   * touch is sent. The window a copy's last access is vouched for in ({@link BackupStore.BackupEntry#vouchedSnapshot}).
   */
  private long accessLagMillis() {
    return config.touchLagCap().plus(config.maintenanceInterval()).toMillis();
  }

  /**
   * Adopts a session its leaving owner handed over. The owner captured it before the handoff was sent, and a request
   * still running there may have flushed a later version to this node, its buddy, in between (and been answered 200):
   * the newer of the two copies is adopted, never the older one over an acknowledged change. As in {@link
   * #adoptBackup}, the owner's later flushes are refused before the copy held here is read, and the session is owned
   * before that copy goes.
   */
  void adoptHandoff(SessionSnapshot handed) {
    backups.refuseUpTo(handed.id(), handed.epoch());
    SessionSnapshot newest = backups.entry(handed.id()).map(held -> held.vouchedSnapshot(accessLagMillis()))
        .filter(held -> held.epoch() > handed.epoch() || held.epoch() == handed.epoch() && held.version() > handed.version())
        .orElse(handed);
    adopt(newest);
    backups.claimedHere(handed.id(), newest.epoch());
  }

  /** A new view: the backups of each owner it no longer lists are adopted, unless this node is in quarantine. */
  void ownersLeft(MembershipView previous, MembershipView next) {
    for (NodeId owner : backups.owners()) {
      // An owner that restarted under its id (faster than the failure detector) came back without its sessions: the
      // copies held here are nobody's, as if it had left. A copy its new run sent meanwhile is adopted too, and its
      // next write fenced: nothing acknowledged is lost, and nobody else would ever take the old run's copies.
      if (!next.contains(owner) || next.restartedSince(previous, owner)) {
        long run = previous == null ? UNKNOWN_RUN : previous.member(owner).map(m -> m.incarnation()).orElse(UNKNOWN_RUN);
        if (quarantine.active()) {
          LOG.log(Level.WARNING, "Node {0}: owner {1} left the view while this node is in quarantine after a pause; "
              + "its sessions are not adopted until the membership has settled", local.value(), owner.value());
          if (previous != null) {
            previous.member(owner).ifPresent(m -> departedInQuarantine.putIfAbsent(owner, m.incarnation()));
          }
        } else {
          adoptAll(owner, run);
        }
      }
    }
  }

  /**
   * The quarantine was lifted: the backups of owners that are not in {@code current}, and of those that left or
   * restarted meanwhile and are listed again under another run, are confirmed with every member before any is adopted
   * ({@link LeftoverCopies#doubt}). While this node was away, such an owner may have moved its buddy elsewhere and
   * written on, or ended sessions, there: adopted at once, a copy here brought an ended session back or served values
   * older than the owner's last 200 (docs/protocol.md 11.3.43). A restarted owner came back without its sessions:
   * seeing it back in the view, this node kept their only copies and nobody owned them until a request migrated each
   * one from here (soak seed 89564); confirmed, nobody else holds them, and they are adopted. One listed under the same
   * run was only cut off, and owns its sessions still.
   */
  void adoptAbsentOwners(MembershipView current) {
    int doubted = 0;
    for (NodeId owner : backups.owners()) {
      Long runBefore = departedInQuarantine.get(owner);
      boolean restarted = runBefore != null
          && current.member(owner).map(run -> run.incarnation() != runBefore).orElse(false);
      if (!current.contains(owner) || restarted) {
        for (BackupStore.BackupEntry held : backups.heldFor(owner)) {
          leftovers.doubt(held);
          doubted++;
        }
      }
    }
    departedInQuarantine.clear();
    if (doubted > 0) {
      // Confirmed by this tick's next task (confirmLeftovers), and by a request for one of them before that.
      LOG.log(Level.INFO, "Node {0}: {1} copies held here through the quarantine are of owners that left or restarted"
          + " meanwhile; each is adopted once every other member answered and none holds it as new", local.value(), doubted);
    }
  }

  /** Whether this node holds a backup of {@code id} whose owner it saw die (see {@link SuspectedPeers#seenDying}). */
  boolean heldFromADeadOwner(String id) {
    return backups.entry(id).map(held -> ring.seenDying(held.owner())).orElse(false);
  }

  /**
   * The maintenance task: adopts the copies of departed owners that had them confirmed here a moment before they left,
   * once that lease ran out (see {@link #deferred}).
   */
  void adoptDeferred(Maintenance.Tick tick) {
    MembershipView current = tick.view();
    if (current == null || deferred.isEmpty() || quarantine.active()) {
      return;
    }
    for (Map.Entry<NodeId, Long> entry : List.copyOf(deferred.entrySet())) {
      NodeId owner = entry.getKey();
      long run = entry.getValue();
      if (!deferred.remove(owner, run)) {
        continue;
      }
      boolean backUnderTheSameRun = current.member(owner).map(m -> run == UNKNOWN_RUN || m.incarnation() == run).orElse(false);
      if (!backUnderTheSameRun) {
        adoptAll(owner, run);
      }
    }
  }

  private void adoptAll(NodeId deadOwner, long run) {
    if (leftovers.isLeftover(deadOwner)) {
      // The ring names another member heir: these copies may be older than the owner's last 200s (see LeftoverCopies).
      LOG.log(Level.INFO, "Node {0}: owner {1} is gone; the copies held here are left from when this node was its buddy,"
          + " and are adopted only if no other member holds them as new", local.value(), deadOwner.value());
      maintenance.execute(this::confirmLeftoversNow); // dropped once the engine closed: nothing is adopted then
      return;
    }
    List<BackupStore.BackupEntry> held = backups.heldFor(deadOwner);
    LOG.log(Level.INFO, "Node {0}: owner {1} is gone; adopting its {2} sessions", local.value(), deadOwner.value(), held.size());
    Duration lease = config.pauseThreshold();
    for (BackupStore.BackupEntry entry : held) {
      String id = entry.snapshot().id();
      if (leftovers.isDoubted(entry)) {
        // Kept through a quarantine, not yet confirmed (the owner restarted, or came back, and is gone again): only
        // confirmed with every member is it adopted (11.3.43), by the tick or a request.
        continue;
      }
      // The owner may be alive beyond a cut of the membership alone, serving the session on (reads need no buddy):
      // told of this claim as soon as the view lists it again, it lets go. A dead one is never told; a restarted one
      // holds nothing to let go of.
      Optional<OwnedSession> adopted = adoptBackup(id, copy -> copy.owner().equals(deadOwner));
      adopted.ifPresent(session -> releaseFormerOwner.accept(session, deadOwner));
      if (adopted.isEmpty() && backups.entry(id).filter(copy -> copy.owner().equals(deadOwner))
          .map(copy -> copy.confirmedToOwnerWithin(lease)).orElse(false)) {
        // The owner, back from a pause, asked a moment ago where this session is, and was told "held here at your
        // epoch": it serves the session on that answer for up to a lease, reads included (they need no buddy).
        // Adopted now, the session moved on while the owner served its older copy (11.3.13); adopted once the lease
        // ran out, the owner's next request finds it moved on and lets go.
        deferred.merge(deadOwner, run, (a, b) -> a);
      }
    }
  }

  // ---- maintenance tasks ------------------------------------------------------------------------------------------

  /** In quarantine, dials the departed owners of backups held here (see {@link RingTracker#dialDepartedOwners}). */
  void dialDepartedOwners(Maintenance.Tick tick) {
    if (quarantine.active()) {
      ring.dialDepartedOwners(backups.owners());
    }
  }

  /** Confirms the leftover copies of owners that left the tick's view (see {@link LeftoverCopies#confirmDeparted}). */
  void confirmLeftovers(Maintenance.Tick tick) {
    confirmLeftovers(tick.view());
  }

  private void confirmLeftoversNow() {
    confirmLeftovers(ring.view());
  }

  private void confirmLeftovers(MembershipView current) {
    if (current != null && !quarantine.active()) {
      leftovers.confirmDeparted(current);
    }
  }

  /**
   * Drops the backups of owners the tick's view does not list whose idle time ran out: against the last access the
   * owner sent, which lags by up to {@code touchLagCap}, plus {@code orphanGrace}.
   */
  void expireOrphans(Maintenance.Tick tick) {
    MembershipView current = tick.view();
    if (current != null) {
      long grace = config.touchLagCap().plus(config.orphanGrace()).toMillis();
      counters.backupsExpired.add(backups.expireOrphans(current::contains, grace).size());
    }
  }
}
