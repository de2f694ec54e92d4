package io.tandem.core.replicator;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Members of the view that replication treats as gone before the view says so: the transport saw the connection to
 * each close and its redial refused at once, which is what a killed process looks like ({@link
 * io.tandem.core.spi.PeerWatcher}). An overlay on the view, not a second membership: the view still decides who is a
 * member, and adoption of a dead owner's backups still waits for it. What the overlay changes is whom the owner
 * replicates to (the ring of the view without the suspects), so SYNC writes stop waiting on a dead buddy at once
 * instead of for the view's 0.3–0.5 s.
 *
 * <p>A suspicion ends when the peer connects again (it was alive, or restarted at the same address), or when a view
 * without the peer arrives: from then on the membership speaks for it, and a later view listing it again is a new
 * incarnation, not a suspect. A peer that hangs or is cut off never closes the connection with a refusal, so it is
 * never suspected here; it leaves through the view's heartbeat timeout.
 *
 * <p>Why a wrong suspicion cannot make a stale copy win: it changes only where this node sends its own sessions and
 * whether it waits. A backup is taken over (here or by migration) only at a higher epoch, and the store refuses every
 * later write at the older epoch ({@code BackupStore#refuseUpTo}, {@code IncomingRequests#ownedHere}): a suspected
 * owner that is alive has its next write refused and is fenced (503), never acknowledged over the newer copy. An
 * owner that suspects its buddy while it lives re-sends every session in full to the next buddy before it answers 200
 * (or, alone in the ring, answers as a node alone in its view), exactly as after a view change.
 *
 * <p>A suspect the view then dropped is remembered as one that was seen dying ({@link #seenDying}) until a view
 * lists it again or it connects: a node that was paused keeps its quarantine for as long as it sees no other member,
 * and that memory is what tells it a missing owner died (its host refused it) rather than went missing beyond a cut.
 * A member the view dropped first is remembered with its address ({@link #departedUnseen}); a quarantined node dials
 * it, and one that refuses joins the dead ({@link #refusedAfterLeaving}).
 *
 * <p>Implementation notes: a concurrent set, written by the transport's event thread ({@link #suspect}, {@link
 * #clear}) and the membership thread ({@link #retainMembersOf}), always under {@link RingTracker}'s ring lock, read by
 * anyone. The tracker derives the buddy from it under that lock, so two changes never interleave their re-protection.
 * {@link #refusedAfterLeaving} runs on the maintenance thread without it. The memories of departed members are
 * synchronized, insertion-ordered maps of at most {@link #DEAD_REMEMBERED} ids each (the oldest is forgotten first:
 * forgetting one costs a 503 where a promotion was possible, never a wrong answer).
 */
final class SuspectedPeers {
  static final int DEAD_REMEMBERED = 1024;

  private final Set<NodeId> suspected = ConcurrentHashMap.newKeySet();
  /** Suspects the view dropped since: the set view of a bounded map in insertion order. */
  private final Set<NodeId> departedDead = Collections.newSetFromMap(bounded());
  /** Members a view dropped that were not suspected, with the address they had: maybe dead, maybe beyond a cut. */
  private final Map<NodeId, Member> departedUnseen = bounded();

  private static <V> Map<NodeId, V> bounded() {
    return Collections.synchronizedMap(new LinkedHashMap<NodeId, V>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<NodeId, V> eldest) {
        return size() > DEAD_REMEMBERED;
      }
    });
  }

  /** Suspects {@code peer}; true when that is new and the peer is a member of {@code view} (else there is nothing to do). */
  boolean suspect(NodeId peer, MembershipView view) {
    return view != null && view.contains(peer) && suspected.add(peer);
  }

  /** The peer connected again; true when it was suspected. */
  boolean clear(NodeId peer) {
    departedDead.remove(peer);
    departedUnseen.remove(peer);
    return suspected.remove(peer);
  }

  /**
   * A new view: suspects it no longer lists are the membership's business from now on (and remembered as seen dying);
   * a member it lists again is alive, or a new incarnation. A suspect it lists as another run than {@code previous}
   * did is no longer one: the run whose redial was refused is gone (its sessions are adopted as a departed owner's),
   * and this one was admitted by the membership since. It would otherwise stay suspected until it connected to this
   * node, which it may never need to: left out of this node's ring, it was refused every migration from here as "not
   * a member" (the simulation, seed 42885).
   */
  void retainMembersOf(MembershipView previous, MembershipView view) {
    for (NodeId peer : suspected) {
      if (!view.contains(peer)) {
        departedDead.add(peer);
        suspected.remove(peer);
      } else if (view.restartedSince(previous, peer)) {
        suspected.remove(peer);
      }
    }
    departedDead.removeIf(view::contains);
    departedUnseen.keySet().removeIf(view::contains);
  }

  /** A view dropped {@code member}, which was not suspected: it may have died, or be beyond a cut. */
  void leftUnseen(Member member) {
    if (!suspected.contains(member.id())) {
      departedUnseen.put(member.id(), member);
    }
  }

  /** The members views dropped without a refusal, and not listed again since: whom a quarantined node may dial. */
  List<Member> departedUnseen() {
    synchronized (departedUnseen) {
      return List.copyOf(departedUnseen.values());
    }
  }

  /** A member the view dropped refused a dial since: it died (see {@link #seenDying}). */
  void refusedAfterLeaving(NodeId peer) {
    if (departedUnseen.remove(peer) != null) {
      departedDead.add(peer);
    }
  }

  /**
   * Whether {@code peer} was seen dying: its connection closed and its host refused a redial, and since then it has
   * neither connected again nor been listed by a view after leaving one. A member missing for any other reason (cut
   * off, frozen, or dropped by a view this node cannot trust) is not.
   */
  boolean seenDying(NodeId peer) {
    return suspected.contains(peer) || departedDead.contains(peer);
  }

  boolean isSuspected(NodeId peer) {
    return suspected.contains(peer);
  }

  /** The members replication works with: {@code view} without the suspects (the same view when there are none). */
  MembershipView withoutSuspects(MembershipView view) {
    if (suspected.isEmpty() || view.members().stream().noneMatch(m -> suspected.contains(m.id()))) {
      return view;
    }
    return new MembershipView(view.viewId(), view.members().stream().filter(m -> !suspected.contains(m.id())).toList());
  }

  Set<NodeId> all() {
    return Set.copyOf(suspected);
  }
}
