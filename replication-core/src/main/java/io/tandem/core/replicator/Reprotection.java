package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Protection again after the buddy changed, and the release of the copies former buddies still hold. When the ring
 * names another buddy, every owned session is marked unprotected and queued for the {@link StateTransfer} (a suspect
 * one only once the quarantine confirms it), and its former buddy goes into the release ledger; the maintenance tick
 * releases that copy once the session is protected on the new buddy, or no longer owned here (see {@link
 * #releaseFormerBackups}). A migration that moved a session on puts the copy its former holder's buddy keeps into the
 * same ledger ({@link #releaseLater}).
 *
 * <p>Implementation notes: {@code ledger} is a concurrent map of immutable lists, each changed only through the map's
 * atomic {@code merge} and {@code computeIfPresent}: written under the ring lock ({@link #buddyChanged}, on the
 * membership's or the transport's event thread), by request threads ({@link #releaseLater}), and by transport threads
 * (a release that failed is put back); a release is removed by the thread that sends it (the maintenance thread, or
 * the one that saw the session protected, {@link #protectedAnew}), and the atomic removal lets only one of them send
 * it. This class holds no lock: a release is sent outside any, and {@link #buddyChanged} only marks and queues under
 * the ring lock.
 */
final class Reprotection {
  private final OwnedSessions owned;
  private final Quarantine quarantine;
  private final StateTransfer stateTransfer;
  private final Transport transport;
  private final Ticker ticker;
  /** {@code tombstoneTtl}: how long a release waits for a former buddy that is out of the view to come back. */
  private final long releaseWaitNanos;
  /** Whether a session is being handed out by this node ({@link Handovers}): its former holders keep their copies. */
  private final Predicate<String> handingOut;
  /** Fences a session owned here that a release showed another node owns at a later epoch. */
  private final BiConsumer<OwnedSession, String> fence;
  /**
   * Former buddies (and holders) to release each session's copy at, since when, and under which ids (see {@link
   * #releaseFormerBackups}); one release per former member, replaced only by another to that member. Each value is an
   * immutable list, swapped whole by the map's atomic operations.
   */
  private final Map<OwnedSession, List<Release>> ledger = new ConcurrentHashMap<>();

  Reprotection(OwnedSessions owned, Quarantine quarantine, StateTransfer stateTransfer, Transport transport,
      Ticker ticker, Duration releaseWait, Predicate<String> handingOut, BiConsumer<OwnedSession, String> fence) {
    this.handingOut = handingOut;
    this.fence = fence;
    this.owned = owned;
    this.quarantine = quarantine;
    this.stateTransfer = stateTransfer;
    this.transport = transport;
    this.ticker = ticker;
    this.releaseWaitNanos = releaseWait.toNanos();
  }

  /**
   * The ring names another buddy (under the ring lock): every owned session is sent in full to the new one (a suspect
   * copy only once confirmed: it may be one the cluster ended), and a former buddy still alive drops its copies once
   * they are protected elsewhere.
   */
  void buddyChanged(NodeId former) {
    for (OwnedSession session : owned.all()) {
      owned.markUnprotected(session);
      if (former != null) {
        // Also when it left the view (paused, cut off): it keeps its copies, and comes back with them. A release
        // still pending at another member stays (it holds a copy too), and the ids this one's copy may be under are
        // remembered now: logins while it is away do not reach it, and more of them than the session remembers of
        // its former ids made a pre-login copy outlive them all (soak seed 94817, docs/protocol.md 11.3.28).
        add(session, new Release(former, ticker.read(), false, idsHeldUnder(session)));
      }
      if (!quarantine.isSuspect(session.id())) {
        stateTransfer.enqueue(session);
      }
    }
  }

  /** Sends a confirmed session to the buddy if it has no copy there (see {@link Quarantine.Engine#protect}). */
  void protect(OwnedSession session) {
    if (!session.isProtected()) {
      stateTransfer.enqueue(session);
    }
  }

  /**
   * Releases {@code former}'s copy of a session that moved on (its former holder, or that holder's buddy) as soon as
   * the session is protected here, and until it answers.
   */
  void releaseLater(OwnedSession session, NodeId former) {
    add(session, new Release(former, ticker.read(), true, idsHeldUnder(session)));
  }

  /**
   * The buddy {@code to} acknowledged the session: the copy its former holder keeps is released now, not at the next
   * tick. The holder keeps its copy and its buddy's until then ({@link Handovers}), and answers its requests for the
   * session 503 meanwhile. Former buddies after a ring change wait for the tick, as before.
   */
  void protectedAnew(OwnedSession session, NodeId to, MembershipView current) {
    List<Release> pending = ledger.get(session);
    if (pending != null && current != null) {
      long now = ticker.read();
      for (Release release : pending) {
        if (release.atOnce()) {
          releaseOne(session, release, current, to, now);
        }
      }
    }
  }

  /** The maintenance task: {@link #releaseFormerBackups(MembershipView, NodeId)} once there is a view. */
  void releaseFormerBackups(Maintenance.Tick tick) {
    if (tick.view() != null) {
      releaseFormerBackups(tick.view(), tick.buddy());
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
    for (Map.Entry<OwnedSession, List<Release>> entry : List.copyOf(ledger.entrySet())) {
      for (Release release : entry.getValue()) {
        releaseOne(entry.getKey(), release, current, to, now);
      }
    }
  }

  /**
   * Forgets every release pending for {@code session}: this node gave up its claim in favour of an owner at an older
   * epoch ({@link Fencing#yieldTo}). Sent, a release of that owner at the epoch just given up fenced the one live copy,
   * and the fenced owner then released its buddy's: the session was gone (the partition drill, docs/protocol.md
   * 11.3.46).
   */
  void forget(OwnedSession session) {
    ledger.remove(session);
  }

  /** One entry of the ledger: released if its time has come. */
  private void releaseOne(OwnedSession session, Release release, MembershipView current, NodeId to, long now) {
    if (quarantine.isSuspect(session)) {
      // Unconfirmed since a pause: this node may be the one to give way (a yield forgets the release), and a release
      // sent meanwhile would fence the owner it gives way to. Released once confirmed.
      return;
    }
    NodeId former = release.former();
    // A session that ended, moved on or was fenced before its new buddy had it is released too: its former buddy is
    // no longer its buddy, nobody else would ever tell it, and a copy left there would be adopted, stale or ended,
    // the day its owner leaves the view.
    if (!session.isActive() || session.isProtected()) {
      if (!session.isActive() && handingOut.test(session.id())) {
        // Handed out, and the requester has not shown it holds the session: the copy here may be the one it is
        // decided from (a holder that dies meanwhile leaves only that copy; the simulation, seed 13462, lost the
        // session so). Released once the handover ends.
        return;
      }
      if (!current.contains(former) && now - release.sinceNanos() < releaseWaitNanos) {
        // Away (paused, cut off): released when it is back, for as long as tombstones live. Forgotten, the copy it
        // kept of a session that ended meanwhile was adopted, ended, the day this node stopped (docs/protocol.md
        // 11.2; the simulation found it).
        return;
      }
      if (!remove(session, release)) {
        return;
      }
      // The current buddy keeps the copy of a session still owned here; of one that moved on it keeps nothing. Of
      // one that ended, the former buddy keeps that it ended.
      InvalidateReason reason = session.isGone() ? InvalidateReason.INVALIDATED : InvalidateReason.RELEASED;
      if (current.contains(former) && (!session.isActive() || !former.equals(to))) {
        transport.request(former, new Message.Invalidate(session.id(), session.epoch(), session.version(), reason))
            .whenComplete((reply, failure) -> {
              if (failure != null) {
                add(session, release); // the next tick sends it again
              } else if (reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.STALE_EPOCH
                  && nack.epoch() > session.epoch() && session.isActive()) {
                // The former holder took the session back above this node's epoch (it decided this node never
                // installed its answer: this node was paused or cut off meanwhile). Serving on, or handing the copy
                // out, made two owners (the simulation, seed 17429).
                fence.accept(session, former.value() + " owns it at epoch " + nack.epoch() + " (this node had epoch "
                    + session.epoch() + ")");
              }
            });
        endIdsGivenUp(session, release);
      } else if (current.contains(former)) {
        // The former buddy is the buddy again: it holds the session under its id now, and any copy it kept under an
        // id given up meanwhile ended.
        endIdsGivenUp(session, release);
      }
    }
  }

  /**
   * The ids a login gave up since the former member's copy was made, or while the release waited: it may hold its
   * copy under one of them, which it would adopt as a live session the day this node died (docs/protocol.md 11.2,
   * 11.3.28). They ended, for good.
   */
  private void endIdsGivenUp(OwnedSession session, Release release) {
    for (String given : givenUp(session, release)) {
      transport.request(release.former(),
          new Message.Invalidate(given, session.epoch(), session.version(), InvalidateReason.INVALIDATED));
    }
  }

  /** The ids the session has now and had before (as many as it remembers): a copy made now is under one of them. */
  private static List<String> idsHeldUnder(OwnedSession session) {
    List<String> ids = new ArrayList<>(session.formerIds());
    ids.add(session.id());
    return List.copyOf(ids);
  }

  /** Every id {@code release}'s former member may hold the session under that it no longer has. */
  private static Set<String> givenUp(OwnedSession session, Release release) {
    Set<String> given = new LinkedHashSet<>(release.idsHeldUnder());
    given.addAll(session.formerIds());
    given.remove(session.id());
    return given;
  }

  /** Adds {@code release} to the session's pending ones, replacing one to the same member (its ids kept too). */
  private void add(OwnedSession session, Release release) {
    ledger.merge(session, List.of(release), (pending, added) -> with(pending, release));
  }

  private static List<Release> with(List<Release> pending, Release release) {
    List<Release> updated = new ArrayList<>(pending.size() + 1);
    Set<String> ids = new LinkedHashSet<>();
    long since = release.sinceNanos();
    boolean atOnce = release.atOnce();
    for (Release r : pending) {
      if (r.former().equals(release.former())) {
        ids.addAll(r.idsHeldUnder());
        since = Math.max(since, r.sinceNanos()); // a failed release put back does not turn an entry's clock back
        atOnce |= r.atOnce(); // a holder's release stays one sent as soon as the session is protected
      } else {
        updated.add(r);
      }
    }
    ids.addAll(release.idsHeldUnder());
    updated.add(new Release(release.former(), since, atOnce, List.copyOf(ids)));
    return List.copyOf(updated);
  }

  /** Removes exactly {@code release} from the session's pending ones; false when another caller took it first. */
  private boolean remove(OwnedSession session, Release release) {
    boolean[] removed = new boolean[1];
    ledger.computeIfPresent(session, (key, pending) -> {
      if (!pending.contains(release)) {
        return pending;
      }
      removed[0] = true;
      List<Release> rest = pending.stream().filter(r -> !r.equals(release)).toList();
      return rest.isEmpty() ? null : rest;
    });
    return removed[0];
  }

  /**
   * A former buddy (or holder) that keeps a copy of a session until it is released, and since when (the engine's
   * ticker); {@code atOnce} when it is released as soon as the buddy acknowledges the session rather than at the next
   * tick (see {@link #protectedAnew}).
   */
  private record Release(NodeId former, long sinceNanos, boolean atOnce, List<String> idsHeldUnder) {}
}
