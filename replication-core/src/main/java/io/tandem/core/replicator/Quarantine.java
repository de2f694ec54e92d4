package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What a node does when it may have been left behind: its JVM did not run for longer than the pause threshold, or
 * its view lost at least half of its members at once. Either way the others may have declared it dead and taken its
 * sessions over, and its own view may show it alone. Until it sees other members again (and a few seconds passed):
 * each session it owned is confirmed with the cluster before it is served, nothing is adopted, and what cannot be
 * confirmed is refused. See {@link #admit}.
 *
 * <p>Implementation notes: the pause and suspect state live in {@link PauseGuard} (thread-safe, and lock-free while
 * there is neither a pause nor a suspect: every request asks); {@code shrinks} is only touched from the membership
 * thread ({@link #viewChanged}); {@code leasedUntil} is a concurrent map written by the request and maintenance
 * threads that confirm sessions, and read by every request (its emptiness first, without a lock).
 */
final class Quarantine {
  private static final Logger LOG = System.getLogger(Quarantine.class.getName());

  /** What the engine does for the quarantine. */
  interface Engine {
    /** Drops this node's copy: another node owns the session now, or nobody does. */
    void fence(OwnedSession session, String reason);

    /**
     * Drops this node's copy in favour of an owner at an older epoch, whose updates it refused since it adopted the
     * session: that adoption was made cut off from an owner that went on writing, and is undone.
     */
    void yieldTo(OwnedSession session, String reason);

    /** Sends a confirmed session to the buddy if it has no copy there. */
    void protect(OwnedSession session);

    /** Confirms, then adopts, the backups of owners that are not in {@code view} or restarted meanwhile. */
    void adoptAbsentOwners(MembershipView view);

    /** Whether this node holds a backup of {@code id} whose owner it saw die (see {@link SuspectedPeers#seenDying}). */
    boolean heldFromADeadOwner(String id);

    /**
     * Whether this node sees no other member and saw every member that left its view die (its host refused it), or
     * never saw one leave: it is not the one cut off, and no other member can have moved its sessions on.
     */
    boolean lastSurvivor();
  }

  private final NodeId local;
  private final Duration threshold;
  private final PauseGuard pauses;
  private final ViewShrinkDetector shrinks;
  private final OwnedSessions owned;
  private final Locator locator;
  private final Supplier<MembershipView> view;
  private final ReplicationCounters counters;
  private final Engine engine;
  private final Ticker ticker;
  /**
   * Sessions confirmed after a pause because a member holds their copy at this epoch, and until when (ticker) they may
   * be served on that answer: that member may adopt the copy once it no longer lists this node, and defers it for as
   * long ({@code BackupStore.confirmToOwner}). Past it, the next request confirms again (docs/protocol.md 11.3.13).
   */
  private final Map<OwnedSession, Long> leasedUntil = new ConcurrentHashMap<>();
  /** How long a confirmation lasts: the pause threshold, which the holder's deferral uses too. */
  private final long leaseNanos;
  /** The ids owned now, asked for only when a pause is recorded; one instance, not one per request. */
  private final Supplier<Collection<String>> ownedIds;

  Quarantine(NodeId local, Duration threshold, Ticker ticker, OwnedSessions owned, Locator locator,
      Supplier<MembershipView> view, ReplicationCounters counters, Engine engine) {
    this.local = local;
    this.threshold = threshold;
    this.ticker = ticker;
    this.leaseNanos = threshold.toNanos();
    this.pauses = new PauseGuard(ticker, threshold, settleAfter(threshold));
    // Members that went silent together leave the view within about one failure detection of each other.
    this.shrinks = new ViewShrinkDetector(ticker, threshold.multipliedBy(2));
    this.owned = owned;
    this.locator = locator;
    this.view = view;
    this.counters = counters;
    this.engine = engine;
    this.ownedIds = () -> owned.all().stream().map(OwnedSession::id).toList();
  }

  /** The membership settles (a cut-off member sees itself alone, then merges back) within a few failure detections. */
  private static Duration settleAfter(Duration threshold) {
    Duration fourTimes = threshold.multipliedBy(4);
    return fourTimes.compareTo(Duration.ofSeconds(5)) < 0 ? Duration.ofSeconds(5) : fourTimes;
  }

  /** Starts measuring pauses from now: joining the cluster took as long as it took. */
  void start() {
    pauses.start();
  }

  /**
   * Notices a pause that just ended; called often by a timer and by every caller about to rely on ownership. Takes
   * no lock unless a pause ended.
   */
  void checkPause() {
    long paused = pauses.observe(ownedIds);
    if (paused > 0) {
      counters.pausesDetected.increment();
      LOG.log(Level.WARNING, "Node {0} did not run for {1} ms (pauseThreshold {2} ms): the cluster may have moved its "
          + "sessions on. Each of its {3} sessions is confirmed with the other members before it is served again, and "
          + "no dead owner''s session is adopted until the membership has settled",
          local.value(), paused, threshold.toMillis(), pauses.suspectCount());
    }
  }

  /**
   * A new view: losing half of it at once may mean this node is the one cut off; and a view of this node alone that
   * dropped members it still hears from (their replication traffic reached it a moment ago, over connections still
   * open) is the membership misjudging them: they run, and may be taking this node for dead as it takes them, each
   * side adopting the other's sessions and acknowledging writes that the merge then loses. A member that was killed,
   * frozen or cut off sends nothing before it is dropped (its connections close, or the view waits out its silence),
   * so a real death leaves the survivor acting alone as before.
   *
   * @param stillHeard the members {@code next} dropped that sent this node a frame within the last moment
   */
  void viewChanged(MembershipView previous, MembershipView next, Set<NodeId> stillHeard) {
    boolean lostMajority = shrinks.lostMajority(next.memberIds().size());
    if (lostMajority) {
      isolate();
      LOG.log(Level.WARNING, "Node {0}: the view shrank to {2} (from {1}) within moments; this node may be the one cut "
          + "off. Until it sees other members again its sessions are confirmed before they are served and no backup is "
          + "adopted", local.value(), previous, next);
    } else if (!stillHeard.isEmpty() && next.memberIds().equals(List.of(local))) {
      counters.misjudgedViews.increment();
      isolate();
      LOG.log(Level.WARNING, "Node {0}: the view shows it alone (from {1}), but {2} sent it replication traffic a moment "
          + "ago over connections still open: the membership may be wrong about them, and they may be taking this node "
          + "for dead too. Until it sees other members again its sessions are confirmed before they are served and no "
          + "backup is adopted", local.value(), previous, stillHeard);
    }
  }

  private void isolate() {
    pauses.isolated(owned.all().stream().map(OwnedSession::id).toList());
  }

  /** Whether adopting backups (or promoting one without asking) must wait. */
  boolean active() {
    return pauses.quarantined();
  }

  /** Whether {@code id} is owned here since before the quarantine and not yet confirmed. */
  boolean isSuspect(String id) {
    return pauses.isSuspect(id);
  }

  /** {@link #isSuspect(String)} of an owned session; reads neither its id nor a lock while nothing is suspect. */
  boolean isSuspect(OwnedSession session) {
    return pauses.anySuspect() && pauses.isSuspect(session.id());
  }

  /**
   * {@code session} is no longer owned here: nothing left to confirm. Its lease goes by the session itself, the map's
   * key: reading each leased session's id would take its monitor, which the caller may hold on another session.
   */
  void forget(OwnedSession session, String id) {
    pauses.cleared(id);
    if (!leasedUntil.isEmpty()) {
      leasedUntil.remove(session);
    }
  }

  /**
   * Whether a request for session {@code id} may run here now. A suspect session is confirmed with the other members
   * first (see {@link #confirm}). In quarantine, a node that sees nobody else refuses sessions it does not own, since
   * it cannot know where they are; except one it holds a backup of from an owner it saw die (its host refused it):
   * with nobody else left, that copy is the only one, and the takeover decides.
   */
  Admission admit(String id) {
    checkPause();
    Optional<OwnedSession> mine = owned.get(id);
    if (mine.isPresent() && (pauses.isSuspect(id) || leaseRanOut(mine.get()))) {
      return confirm(mine.get());
    }
    if (mine.isEmpty() && pauses.quarantined()) {
      return othersIn(view.get()) || engine.heldFromADeadOwner(id) || engine.lastSurvivor() ? Admission.FETCH_FIRST
          : Admission.refused("node " + local.value() + " was paused or cut off and sees no other member to ask where session " + id + " is");
    }
    return Admission.ADMITTED;
  }

  /**
   * {@link #admit(String)} of a session the container holds the engine's handle of and found owned here: no lookup,
   * and no lock while there is no pause and no suspect.
   */
  Admission admit(OwnedSession mine) {
    if (!mine.isActive()) {
      return admit(mine.id()); // fenced or ended since the container found it: a session not owned here
    }
    checkPause();
    return isSuspect(mine) || leaseRanOut(mine) ? confirm(mine) : Admission.ADMITTED;
  }

  /**
   * Whether {@code session} was confirmed on a member's copy and that confirmation ran out (see {@code leasedUntil});
   * in quarantine, also whether it holds no lease at all. A session that became owned here after the pause (created
   * by the first request the node ran on waking) is no suspect, but its buddy's view may be dropping this node just
   * as much: it adopts the copy a moment after acknowledging it, and this node served its own, older, copy from then
   * on (the simulation, seed 134448; docs/protocol.md 11.3.31). In quarantine every owned session is served on a
   * lease, which only a holder's confirmation gives.
   */
  private boolean leaseRanOut(OwnedSession session) {
    if (leasedUntil.isEmpty() && !pauses.quarantined()) {
      return false;
    }
    Long until = leasedUntil.get(session);
    return until == null ? pauses.quarantined() : ticker.read() - until >= 0;
  }

  /**
   * Confirms a suspect session with the other members. Kept if one holds this node's copy at this epoch. Kept as well
   * when every member answered and none knows the session at all (no copy at any epoch, no end, nothing unconfirmed):
   * then this copy is the only one there is, typically a session this node adopted a moment before the pause whose
   * copy had not reached the buddy yet; nobody can have taken it over without a copy, nor ended it. Refused, and left
   * suspect, while a member is silent or holds it unconfirmed too. Dropped otherwise: another member holds it at
   * another epoch or ended it, and the request must fetch the copy the cluster has, or finds none. A copy elsewhere at
   * an older epoch is no proof that this one is newer: a node cut off from the others may have adopted its backup at
   * a higher epoch while the owner went on writing at its own, acknowledged by another buddy (the partition drill).
   * A node that sees nobody keeps its copy only as the last survivor (see {@link Engine#lastSurvivor}): what a member
   * it saw die may have written to the session since could only have been acknowledged as written alone.
   */
  private Admission confirm(OwnedSession session) {
    String id = session.id();
    long askedAt = ticker.read();
    Locator.Answers answers = locator.ask(id);
    Map<NodeId, Message.LocateReply> replies = answers.replies();
    if (replies.isEmpty() && answers.silent().isEmpty() && engine.lastSurvivor()) {
      return keep(session, "it is the last member left");
    }
    if (replies.isEmpty()) {
      return Admission.refused("node " + local.value() + " was paused or cut off and no other member answers whether session " + id + " moved on");
    }
    long epoch = session.epoch();
    if (replies.values().stream().anyMatch(r -> movedOn(r, epoch))) {
      return fenced(session, "another member holds it at a newer epoch, owns it at this one, or ended it");
    }
    if (replies.values().stream().anyMatch(r -> r.holding() == Message.LocateReply.Holding.UNCONFIRMED && r.epoch() >= epoch)) {
      // A member is about to take it over (its view no longer lists this node), or owns or hands it on unconfirmed:
      // another member's copy at this epoch does not make this one safe to serve (11.3.13).
      return Admission.refused("node " + local.value() + " was paused or cut off and another member holds session " + id
          + " unconfirmed at its epoch or above");
    }
    boolean confirmed = replies.values().stream()
        .anyMatch(r -> r.holding() == Message.LocateReply.Holding.BACKUP && r.epoch() == epoch);
    boolean unknownElsewhere = replies.values().stream().allMatch(r -> r.holding() == Message.LocateReply.Holding.NONE);
    if (!confirmed && unknownElsewhere && !answers.silent().isEmpty()) {
      return Admission.refused("node " + local.value() + " was paused or cut off, no member that answered knows session "
          + id + ", and " + answers.silent() + " did not answer");
    }
    if (!confirmed && replies.values().stream().anyMatch(r -> r.holding() == Message.LocateReply.Holding.UNCONFIRMED)) {
      return Admission.refused("node " + local.value() + " was paused or cut off and another member holds session " + id
          + " unconfirmed too");
    }
    if (!confirmed && !unknownElsewhere && !answers.silent().isEmpty()) {
      // A silent member may be this node's buddy, holding its copy at this epoch: that would confirm it.
      return Admission.refused("node " + local.value() + " was paused or cut off, another member holds session " + id
          + " at an older epoch, and " + answers.silent() + " did not answer");
    }
    if (!confirmed && !unknownElsewhere) {
      return dropped(session, engine::yieldTo, "another member holds it at an older epoch, and none at this node's");
    }
    Admission kept = confirmed ? keep(session, null) : keep(session, "no other member knows it");
    if (confirmed && pauses.quarantined()) {
      // Served on the holder's word, for as long as it defers adopting the copy: from before the question was sent.
      // Once the quarantine lifted (the views settled), a confirmation is for good, as before.
      leasedUntil.put(session, askedAt + leaseNanos);
    }
    return kept;
  }

  /** The copy is the cluster's: no longer suspect, and sent to the buddy if it has none. */
  private Admission keep(OwnedSession session, String onlyCopyBecause) {
    leasedUntil.remove(session);
    pauses.cleared(session.id());
    engine.protect(session);
    if (onlyCopyBecause != null) {
      LOG.log(Level.INFO, "Node {0}: after the pause, this node''s copy of session [{1}] is the only one and is kept: {2}",
          local.value(), session.id(), onlyCopyBecause);
    }
    return Admission.ADMITTED;
  }

  private Admission fenced(OwnedSession session, String why) {
    return dropped(session, engine::fence, why);
  }

  /** Drops the copy ({@code how}: fenced, or yielded to an owner at an older epoch); the request must fetch it. */
  private Admission dropped(OwnedSession session, java.util.function.BiConsumer<OwnedSession, String> how, String why) {
    leasedUntil.remove(session);
    // Dropped before it stops being suspect: no request may find it owned and unsuspected in between.
    how.accept(session, why + " after this node was paused or cut off");
    pauses.cleared(session.id());
    return Admission.FETCH_FIRST;
  }

  /** Whether a reply shows the session moved on from this node's epoch: a copy at a newer one, an owner at this one, an end. */
  private static boolean movedOn(Message.LocateReply reply, long epoch) {
    return reply.holding() == Message.LocateReply.Holding.ENDED
        || reply.holding().hasCopy() && reply.epoch() > epoch
        || reply.holding() == Message.LocateReply.Holding.PRIMARY && reply.epoch() == epoch;
  }

  /** The maintenance tick: confirms in the background what no request confirmed, and lifts quarantine once settled. */
  void tick(MembershipView current) {
    boolean lastSurvivor = !othersIn(current) && engine.lastSurvivor();
    if (pauses.suspectCount() > 0 && (othersIn(current) || lastSurvivor)) {
      for (OwnedSession session : owned.all()) {
        if (pauses.isSuspect(session.id())) {
          confirm(session);
        }
      }
    }
    if (pauses.liftIfSettled(othersIn(current) || lastSurvivor)) {
      leasedUntil.clear(); // once the views settled, a confirmation is for good (see confirm)
      LOG.log(Level.INFO, "Node {0}: quarantine lifted in {1}", local.value(), current);
      engine.adoptAbsentOwners(current);
    }
  }

  private boolean othersIn(MembershipView current) {
    return current != null && current.memberIds().stream().anyMatch(m -> !m.equals(local));
  }
}
