package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.ring.BuddyRing;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.Waiter;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Follows the ring this node replicates on: the membership's views, and the peers the transport found gone before a
 * view says so ({@link SuspectedPeers}). Each change is published as one {@link RingState} (the view, the view without
 * the suspects, and the buddy that names) and wakes the SYNC writes waiting for a change ({@link ViewChanges}). A new
 * view is told to the view followers (the quarantine's shrink detector) before the buddy is derived from it; a changed
 * buddy to the buddy followers (the re-protection of every owned session, {@link Reprotection}).
 *
 * <p>Implementation notes:
 *
 * <ul>
 *   <li>{@code ringLock} serialises the changes: a view (the membership's view-delivery thread) and a peer refused or
 *       connected again (the transport's peer-event thread). Under it the suspects change, the state is derived and
 *       published, and the followers run, so two changes never interleave their re-protection. {@code state} is
 *       written only under {@code ringLock} and read by anyone without it (volatile; the value is immutable). The
 *       suspects' own set changes only under {@code ringLock} too, so {@code state.replicating()} is always the view
 *       less the current suspects.
 *   <li>Nothing under {@code ringLock} does I/O: the followers mark sessions and queue them for the state transfer. One
 *       future is completed under it, as before this class existed: {@link ViewChanges#changed}, whose waiters block
 *       on their own threads and run nothing on this one.
 *   <li>The followers are registered by the engine before it starts, so before any view or peer event arrives.
 *   <li>{@link #dialDepartedOwners} runs on the maintenance thread, without {@code ringLock}, and its verdicts arrive
 *       on the transport's check threads: they only move a member between the suspects' memories of departed
 *       members, which are synchronized there; {@code dialling} is a concurrent set.
 * </ul>
 */
final class RingTracker implements PeerWatcher {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());
  /**
   * How recently a member the view drops must have sent a frame for the drop to be doubted. Hazelcast drops a silent
   * member after at least two seconds without a heartbeat (heartbeatInterval 1 s + 1), and a killed one after its
   * connections closed, which closes this node's too; a member heard within one second was neither.
   */
  private static final Duration STILL_HEARD = Duration.ofSeconds(1);

  /** Told of each new view, under the ring lock, before the buddy is derived from it. */
  @FunctionalInterface
  interface ViewFollower {
    /** @param stillHeard the members {@code next} dropped that sent this node a frame a moment ago */
    void viewChanged(MembershipView previous, MembershipView next, Set<NodeId> stillHeard);
  }

  /** Told that the buddy changed, under the ring lock, once the new state is published. */
  @FunctionalInterface
  interface BuddyFollower {
    /** @param former the buddy until now, or null when there was none */
    void buddyChanged(NodeId former);
  }

  private final NodeId local;
  private final Transport transport;
  private final OwnedSessions owned;
  private final UnknownSessions unknown;
  private final SuspectedPeers suspects = new SuspectedPeers();
  /**
   * The departed members whose redial check is on its way ({@link #dialDepartedOwners}): one at a time each. Added on
   * the maintenance thread, removed on the thread that completes the check.
   */
  private final Set<NodeId> dialling = ConcurrentHashMap.newKeySet();
  private final ViewChanges changes;
  private final List<ViewFollower> viewFollowers = new CopyOnWriteArrayList<>();
  private final List<BuddyFollower> buddyFollowers = new CopyOnWriteArrayList<>();
  private final Object ringLock = new Object();
  /** Written only under {@code ringLock} (see {@link #followRing}); read by anyone without it. */
  private volatile RingState state = RingState.NONE;

  RingTracker(NodeId local, Transport transport, OwnedSessions owned, UnknownSessions unknown, Ticker ticker,
      Waiter waiter) {
    this.local = local;
    this.transport = transport;
    this.owned = owned;
    this.unknown = unknown;
    this.changes = new ViewChanges(ticker, waiter);
  }

  void followViews(ViewFollower follower) {
    viewFollowers.add(follower);
  }

  void followBuddy(BuddyFollower follower) {
    buddyFollowers.add(follower);
  }

  // ---- the published state ----------------------------------------------------------------------------------------

  RingState state() {
    return state;
  }

  /** The current buddy, or null when this node is alone in its view. */
  NodeId buddy() {
    return state.buddy();
  }

  Optional<NodeId> buddyIfAny() {
    return Optional.ofNullable(state.buddy());
  }

  /** The membership's last view, or null before the first. */
  MembershipView view() {
    return state.view();
  }

  /** The view replication works with: without the members the transport found gone; null before the first view. */
  MembershipView replicating() {
    return state.replicating();
  }

  /** The members of the last view (empty before the first). */
  List<NodeId> members() {
    MembershipView current = state.view();
    return current == null ? List.of() : current.memberIds();
  }

  /**
   * Whether {@code node} is in this node's current view; true before the first view arrived (a node that just started
   * cannot tell yet, and took its buddy's copies before it could).
   */
  boolean isMember(NodeId node) {
    MembershipView current = state.view();
    return current == null || current.contains(node);
  }

  /** Whether {@code peer} was seen dying, not merely missing from the view (see {@link SuspectedPeers#seenDying}). */
  boolean seenDying(NodeId peer) {
    return suspects.seenDying(peer);
  }

  /** The changes SYNC writes wait on. */
  ViewChanges changes() {
    return changes;
  }

  /**
   * Waits at most {@code nanos} until {@code peer} is out of the view replication works with (the view dropped it, or
   * its host refused a redial); true if it is.
   */
  boolean awaitGone(NodeId peer, long nanos) throws InterruptedException {
    return changes.awaitUntil(() -> {
      MembershipView current = replicating();
      return current == null || !current.contains(peer);
    }, nanos);
  }

  /**
   * Whether this node sees no other member and saw every member that left its view die, or never saw one leave (see
   * {@link Quarantine.Engine#lastSurvivor}).
   */
  boolean lastSurvivor() {
    MembershipView current = replicating();
    return current != null && current.memberIds().equals(List.of(local)) && suspects.departedUnseen().isEmpty();
  }

  // ---- changes ----------------------------------------------------------------------------------------------------

  /**
   * Installs {@code next} if it is newer than the last view, and returns whether it was: the transport's peers follow
   * it, the view followers hear of it, and the ring follows it (SYNC writes waiting on a failed buddy retry with the
   * buddy it names).
   */
  boolean install(MembershipView next) {
    MembershipView previous = state.view();
    if (previous != null && next.viewId() <= previous.viewId()) {
      return false;
    }
    Set<NodeId> stillHeard = droppedButStillHeard(previous, next); // before the transport lets go of them
    transport.updatePeers(next);
    synchronized (ringLock) {
      unknown.viewChanged(); // sessions move on a view change: what was found nowhere before may be somewhere now
      for (ViewFollower follower : viewFollowers) {
        follower.viewChanged(previous, next, stillHeard);
      }
      if (previous != null) {
        previous.members().stream().filter(m -> !m.id().equals(local) && !next.contains(m.id())).forEach(suspects::leftUnseen);
      }
      suspects.retainMembersOf(previous, next);
      followRing(next);
    }
    return true;
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
  @Override
  public void peerRefused(NodeId peer, String detail) {
    synchronized (ringLock) {
      MembershipView current = state.view();
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
  @Override
  public void peerConnected(NodeId peer) {
    synchronized (ringLock) {
      MembershipView current = state.view();
      if (!suspects.clear(peer) || current == null) {
        return;
      }
      LOG.log(Level.INFO, "Node {0}: {1} connected again; replicating to it as its view says", local.value(), peer.value());
      followRing(current);
    }
    owned.recoveryStarted();
  }

  /**
   * Publishes {@code current}, the view without the suspects and the buddy that names, and wakes SYNC writes waiting
   * for the ring to change; when the buddy changed, the buddy followers re-protect every owned session on the new one.
   */
  @GuardedBy("ringLock")
  private void followRing(MembershipView current) {
    MembershipView replicating = suspects.withoutSuspects(current);
    NodeId oldBuddy = state.buddy();
    MembershipView previous = state.view();
    NodeId newBuddy = BuddyRing.buddyOf(replicating, local).orElse(null);
    state = new RingState(current, replicating, newBuddy);
    changes.changed();
    if (newBuddy != null && newBuddy.equals(oldBuddy) && current.restartedSince(previous, newBuddy)) {
      // The same node id, another run: it came back without the copies it held (a restart faster than the failure
      // detector). Every session is sent to it again; the former run has nothing left to release.
      LOG.log(Level.WARNING, "Node {0}: buddy {1} restarted; re-protecting {2} sessions", local.value(),
          newBuddy.value(), owned.size());
      for (BuddyFollower follower : buddyFollowers) {
        follower.buddyChanged(null);
      }
    } else if (!Objects.equals(oldBuddy, newBuddy)) {
      LOG.log(Level.INFO, "Node {0}: buddy is now {1} in {2}{3}; re-protecting {4} sessions",
          local.value(), newBuddy == null ? "nobody" : newBuddy.value(), current,
          replicating == current ? "" : " (gone for replication: " + suspects.all() + ")", owned.size());
      for (BuddyFollower follower : buddyFollowers) {
        follower.buddyChanged(oldBuddy);
      }
    }
  }

  /**
   * In quarantine, a member the view dropped before this node saw it die may be dead or beyond a cut: an owner of
   * backups held here ({@code owners}; any departed member, while this node is alone) is dialled once per tick, and
   * one whose host refuses is dead (its backups may be taken over, see {@link Migrations}). Without this, a buddy
   * paused long enough to be dropped, whose owner was then killed, would refuse the owner's sessions for as long as it
   * saw no other member.
   */
  void dialDepartedOwners(Set<NodeId> owners) {
    MembershipView current = replicating();
    boolean alone = current != null && current.memberIds().equals(List.of(local));
    for (Member departed : suspects.departedUnseen()) {
      // Alone, every one is dialled: if all of them died, this node is the last one left (Quarantine's lastSurvivor).
      if ((alone || owners.contains(departed.id())) && dialling.add(departed.id())) {
        // Without waiting: a silent member (a blackhole, a cut network) answers nothing for the connect timeout, and
        // this thread runs the tick's every task (docs/protocol.md 8.5). The verdict counts from the next tick on.
        transport.refusalOf(departed).whenComplete((refused, failure) -> {
          dialling.remove(departed.id());
          if (Boolean.TRUE.equals(refused)) {
            diedAfterLeaving(departed);
          }
        });
      }
    }
  }

  private void diedAfterLeaving(Member departed) {
    suspects.refusedAfterLeaving(departed.id());
    LOG.log(Level.WARNING, "Node {0}: {1}, which left the view, refuses connections at {2}: it died. The sessions "
        + "this node holds copies of may be taken over once no other member knows them", local.value(),
        departed.id().value(), departed.transportAddress());
  }
}
