package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The second step of a migration (docs/protocol.md 5.3): sessions this node handed to a member that asked ({@code
 * Migrate}) and that the requester has not yet shown it holds. Until then the holder keeps the copy it sent, and its
 * buddy keeps its backup: a reply lost with its connection (the requester died, a one-way cut) lost the session before,
 * although only one node had failed (11.3.1, found by the simulation).
 *
 * <p>A handover is <em>done</em> when the requester shows it holds the session at the new epoch, or at the kept one (it
 * owned the session already, see {@link #heldBy}): an update of it stored here (this node is its buddy), or its release
 * of this node's copy ({@code RELEASED}, or {@code INVALIDATED} when it ended the session), which it sends once its own
 * buddy holds the session. Then this node's former buddy is released.
 * A requester of an earlier release sends no release: a handover not done within {@code ackTimeout + settleTimeout}
 * (the longest the requester waits for the answer, after which it never installs it) is decided by asking every member:
 * a copy above the epoch kept here anywhere, or the session owned here again, means done, except the requester's own
 * at the new epoch while no member holds it as a backup (11.3.38: the copy kept here is then the only other one, and
 * the handover stays undecided, asked again at the next tick); a member owning it at the
 * kept epoch or above means let go (the requester may own it by another path: a graceful handoff to it adopted while
 * its request was asking this node, which held the requester's own backup, in the rolling-restart drill); none of
 * that, with every member answering, means the requester never installed the answer (it died, left, or the answer was
 * lost with its connection), and this node takes the session back at the epoch above the one it handed out, which
 * fences a copy the requester might still send. A repeated
 * {@code Migrate} from the same requester, while it may still be waiting for the first answer, is answered again with
 * the same copy.
 *
 * <p>Implementation notes: thread-safe. {@link #pending} is a concurrent map of handovers whose identity is their
 * state: whoever removes one ({@code remove(id, handover)}, from a transport thread that saw the confirmation or the
 * maintenance thread's decision) completes it, exactly once. {@link Handover#asking} keeps one round of questions per
 * handover at a time; {@link Handover#answeredNanos} is written by transport threads that answer again.
 */
final class Handovers {
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  /** What deciding a handover needs from the rest of the engine. */
  interface Engine {
    /** The view replication works with, or null before the first. */
    MembershipView view();

    /**
     * Takes ownership of a session handed out that its requester never installed, at the epoch after the copy's, and
     * queues it for the buddy; counted in {@code sessionsTakenBack}.
     */
    OwnedSession takeBack(SessionSnapshot handed);

    /** Whether this node owns {@code id} now (it came back by another path: a handoff to it, a dead owner's). */
    boolean ownsNow(String id);

    /** Releases {@code former}'s copy of a session once it is protected on the current buddy. */
    void releaseLater(OwnedSession session, NodeId former);
  }

  /**
   * One session handed out and not yet known to be held by the requester.
   *
   * @param handed the copy sent, at the requester's new epoch
   * @param formerBuddy the member holding this node's backup of it, to release once done; null when there is none
   *     (a backup handed out, or the requester was the buddy)
   * @param session the session as owned here before, for the release ledger; null for a backup handed out
   */
  static final class Handover {
    final NodeId requester;
    final SessionSnapshot handed;
    final NodeId formerBuddy;
    final OwnedSession session;
    final long heldEpoch;
    final long heldVersion;
    volatile long answeredNanos;
    /** Recorded before its copy left this node's store ({@link #tentative}): not answered again until that is done. */
    volatile boolean tentative;
    final AtomicBoolean asking = new AtomicBoolean();

    Handover(NodeId requester, SessionSnapshot handed, NodeId formerBuddy, OwnedSession session, long heldEpoch,
        long heldVersion, long answeredNanos) {
      this.requester = requester;
      this.handed = handed;
      this.formerBuddy = formerBuddy;
      this.session = session;
      this.heldEpoch = heldEpoch;
      this.heldVersion = heldVersion;
      this.answeredNanos = answeredNanos;
    }
  }

  private final NodeId local;
  private final Transport transport;
  private final BackupStore backups;
  private final Ticker ticker;
  private final Duration ackTimeout;
  private final long decideAfterNanos;
  private final Engine engine;
  private final ConcurrentMap<String, Handover> pending = new ConcurrentHashMap<>();
  /** Releases of former buddies sent and not answered yet (see {@link #unsettled}). */
  private final java.util.concurrent.atomic.AtomicInteger releasing = new java.util.concurrent.atomic.AtomicInteger();

  Handovers(NodeId local, Transport transport, BackupStore backups, Ticker ticker, Duration ackTimeout,
      Duration settleTimeout, Engine engine) {
    this.local = local;
    this.transport = transport;
    this.backups = backups;
    this.ticker = ticker;
    this.ackTimeout = ackTimeout;
    this.decideAfterNanos = ackTimeout.plus(settleTimeout).toNanos();
    this.engine = engine;
  }

  /** Records a session just handed to {@code requester} (the answer is on its way). */
  void begin(String id, NodeId requester, SessionSnapshot handed, NodeId formerBuddy, OwnedSession session,
      long heldEpoch, long heldVersion) {
    NodeId release = formerBuddy == null || formerBuddy.equals(requester) || formerBuddy.equals(local) ? null : formerBuddy;
    pending.put(id, new Handover(requester, handed, release, session, heldEpoch, heldVersion, ticker.read()));
  }

  /**
   * {@link #begin}, for a copy still to be taken out of this node's store: the handover is visible from now on (a
   * request for the session here is answered 503), and its copy is sent to nobody until {@link #handedOut}, or it is
   * {@link #withdraw withdrawn}.
   */
  Handover tentative(String id, NodeId requester, SessionSnapshot handed, long heldEpoch, long heldVersion) {
    Handover handover = new Handover(requester, handed, null, null, heldEpoch, heldVersion, ticker.read());
    handover.tentative = true;
    pending.put(id, handover);
    return handover;
  }

  /** The copy of a {@link #tentative} handover left the store: it may be answered again from now on. */
  void handedOut(Handover handover) {
    handover.tentative = false;
  }

  /** Forgets a {@link #tentative} handover of {@code id}: the copy could not be handed out after all. */
  void withdraw(String id, Handover handover) {
    pending.remove(id, handover);
  }

  /** Whether {@code id} was handed out and is not yet known to be held by its requester. */
  boolean isPending(String id) {
    return pending.containsKey(id);
  }

  /** The copy of {@code id} handed out and kept here, if it is being handed out. */
  Optional<SessionSnapshot> handing(String id) {
    Handover handover = pending.get(id);
    return handover == null ? Optional.empty() : Optional.of(handover.handed);
  }

  /** The member {@code id} is being handed to, if it is. */
  Optional<NodeId> requesterOf(String id) {
    Handover handover = pending.get(id);
    return handover == null ? Optional.empty() : Optional.of(handover.requester);
  }

  /**
   * The answer to a {@code Migrate} of a session being handed out: the same copy again to its requester (the first
   * answer may have been lost), a refusal to anyone else. Empty when {@code id} is not being handed out.
   */
  Optional<Message> answerAgain(NodeId asker, String id) {
    Handover handover = pending.get(id);
    if (handover == null) {
      return Optional.empty();
    }
    // The same copy again only while the requester may still be waiting for the first answer: later, it may have
    // installed that one, written, and let go of the session (handed it on, or off as it stopped), and the copy
    // kept here is older than what it acknowledged since (the rolling-restart drill served it so).
    if (!handover.requester.equals(asker) || handover.tentative || ticker.read() - handover.answeredNanos >= decideAfterNanos) {
      return Optional.of(Message.Nack.refused(Message.Nack.Refusal.BEING_HANDED, "session " + id + " is being handed to "
          + handover.requester.value() + " by " + local.value() + "; ask every member"));
    }
    handover.answeredNanos = ticker.read(); // the requester may install this answer: the decision waits again
    return Optional.of(new Message.FullSession(handover.handed));
  }

  /**
   * {@code from} showed it holds {@code id} at {@code epoch}: it stored an update of it here, or released (or ended) the
   * copy here. Completes the handover when that is the requester at the kept epoch or above, or anyone at a later
   * epoch than the one handed out.
   *
   * <p>The requester at the kept epoch: an owner that asked this node, its buddy, for its own session (a request of
   * its that started looking before a handoff made it the owner) drops the answer and goes on writing at its epoch,
   * which is the kept one; its update stored here shows it holds the session, and this node's copy is its backup
   * again. Left undecided, the handover outlived that owner when it died: decided while the view still listed it (its
   * transport found it gone, so it was not asked), it took the session back from the copy handed out, older than every
   * write acknowledged since, and answered 503 for it until then (the rolling-upgrade drill, in a fresh-clone CI run).
   * No other member can send an update at the kept epoch: the requester of a session this node owned was not its
   * owner at this node's epoch.
   */
  void heldBy(NodeId from, String id, long epoch, boolean ended) {
    Handover handover = pending.get(id);
    if (handover != null && (epoch > handover.handed.epoch()
        || from.equals(handover.requester) && epoch >= handover.heldEpoch
        || epoch == handover.handed.epoch() && ended)) {
      complete(id, handover, ended, from.value() + " holds it at epoch " + epoch);
    }
  }

  /**
   * Decides the handovers that waited longer than any requester waits for its answer: by asking every member, without
   * blocking this thread (each answer comes back on a transport thread). Called by the maintenance tick.
   */
  void tick() {
    long now = ticker.read();
    for (var entry : List.copyOf(pending.entrySet())) {
      Handover handover = entry.getValue();
      if (now - handover.answeredNanos >= decideAfterNanos && handover.asking.compareAndSet(false, true)) {
        ask(entry.getKey(), handover);
      }
    }
  }

  private void ask(String id, Handover handover) {
    MembershipView current = engine.view();
    if (current == null) {
      handover.asking.set(false);
      return;
    }
    Map<NodeId, CompletableFuture<Message>> asked = new LinkedHashMap<>();
    for (NodeId member : current.memberIds()) {
      if (!member.equals(local)) {
        asked.put(member, transport.request(member, new Message.Locate(id), ackTimeout));
      }
    }
    CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new))
        .whenComplete((done, failure) -> decide(id, handover, asked));
  }

  private void decide(String id, Handover handover, Map<NodeId, CompletableFuture<Message>> asked) {
    try {
      if (pending.get(id) != handover || ticker.read() - handover.answeredNanos < decideAfterNanos) {
        return; // done meanwhile, or answered again: the requester may still install it
      }
      boolean everyoneAnswered = true;
      boolean ownedElsewhere = false;
      boolean requesterOwnsItAtTheKeptEpoch = false;
      boolean heldHere = backups.entry(id).map(held -> held.snapshot().epoch() > handover.heldEpoch).orElse(false);
      boolean protectedThere = backups.entry(id).map(held -> held.snapshot().epoch() >= handover.handed.epoch())
          .orElse(false) || asked.values().stream().map(Handovers::answerOf)
          .anyMatch(answer -> answer instanceof Message.LocateReply found
              && found.holding() == Message.LocateReply.Holding.BACKUP && found.epoch() >= handover.handed.epoch());
      boolean awaitingItsBuddy = false;
      for (Map.Entry<NodeId, CompletableFuture<Message>> asking : asked.entrySet()) {
        Message answer = answerOf(asking.getValue());
        if (answer instanceof Message.LocateReply found) {
          // A pending handover at the kept epoch is the one that gave this node the session: whoever handed it here
          // has not heard that it was held (the requester, which asked for it back and dropped the answer, seed
          // 23362; or the node this one took it from, whose release was lost, soak seed 123609, docs/protocol.md
          // 11.3.29). Counted as an owner, it let both handovers go and lost the session.
          boolean handedHere = found.holding() == Message.LocateReply.Holding.UNCONFIRMED
              && found.epoch() == handover.heldEpoch;
          requesterOwnsItAtTheKeptEpoch |= found.holding() == Message.LocateReply.Holding.PRIMARY
              && asking.getKey().equals(handover.requester) && found.epoch() == handover.heldEpoch;
          ownedElsewhere |= (found.holding() == Message.LocateReply.Holding.PRIMARY
              || found.holding() == Message.LocateReply.Holding.UNCONFIRMED) && found.epoch() >= handover.heldEpoch
              && !handedHere;
        }
        if (!(answer instanceof Message.LocateReply found)) {
          everyoneAnswered = false;
        } else if (found.holding() == Message.LocateReply.Holding.ENDED && found.epoch() >= handover.heldEpoch) {
          complete(id, handover, true, "a member ended it at epoch " + found.epoch());
          return;
        } else if (asking.getKey().equals(handover.requester) && found.epoch() == handover.handed.epoch()
            && (found.holding() == Message.LocateReply.Holding.PRIMARY
            || found.holding() == Message.LocateReply.Holding.UNCONFIRMED) && !protectedThere) {
          // The requester owns what was handed out (confirmed or not since a pause) and no buddy holds it yet: the
          // copy kept here is the only other one, the holder's buddy having maybe dropped its copy on the requester's
          // release. Let go of then, it died with the requester, and so did every write acknowledged before the
          // hand-out (soak seed 275973, docs/protocol.md 11.3.38). Kept until a buddy holds it, or the requester is
          // gone (then taken back).
          awaitingItsBuddy = true;
        } else if ((found.holding().hasCopy() || found.holding() == Message.LocateReply.Holding.UNCONFIRMED)
            && found.epoch() > handover.heldEpoch) {
          // Claimed above the copy kept here (by the requester, or by whoever took it over since): that copy is stale.
          // An owner not confirmed since a pause, or one handing the session on in its turn, holds it too: taking
          // it back from under them served a stale copy in the rolling-restart drill.
          complete(id, handover, false, "a member holds it at epoch " + found.epoch() + " (" + found.holding() + ")");
          return;
        }
      }
      if (engine.ownsNow(id)) {
        // Handed back, or handed off to this node as the requester left: taking the kept copy back would serve it over
        // the writes acknowledged since.
        complete(id, handover, false, "owned by " + local.value() + " again");
      } else if (heldHere) {
        complete(id, handover, false, local.value() + " holds its backup at the new epoch");
      } else if (awaitingItsBuddy) {
        LOG.log(Level.DEBUG, "Session [{0}]: {1} owns it at epoch {2}, not yet protected; the copy handed out is kept",
            id, handover.requester.value(), handover.handed.epoch());
      } else if (everyoneAnswered && !ownedElsewhere) {
        takeBack(id, handover);
      } else if (everyoneAnswered) {
        // Owned by a member at the kept epoch: the requester by another path (a graceful handoff to it, adopted while
        // its request was asking this node, which had the requester's own backup: the rolling-restart drill), or
        // another member. Taking the session back from under that owner served an older copy over its acknowledged
        // writes; letting go keeps them.
        complete(id, handover, false, "owned by a member at epoch " + handover.heldEpoch + " or above");
        if (handover.session == null && requesterOwnsItAtTheKeptEpoch) {
          keepAsItsBackup(id, handover);
        }
      }
    } finally {
      handover.asking.set(false);
    }
  }

  private static Message answerOf(CompletableFuture<Message> reply) {
    return reply.isDone() && !reply.isCompletedExceptionally() ? reply.join() : null;
  }

  /**
   * The backup this node handed to its own owner, which kept the session it owned at that epoch and wrote nothing
   * since (a write would have re-protected it here and ended the handover, see {@link #heldBy}): the copy handed out
   * is that owner's backup again. Its owner takes this node for its buddy all along; let go without it, the session had
   * no copy anywhere but on its owner, whose death would lose every write acknowledged before the hand-out (the
   * simulation, seed 62436: no copy on the buddy 30 s after the faults healed). Stored only where nothing newer is.
   */
  private void keepAsItsBackup(String id, Handover handover) {
    SessionSnapshot copy = new SessionSnapshot(id, handover.heldEpoch, handover.heldVersion, handover.handed.metadata(),
        handover.handed.attributes());
    backups.applyFull(handover.requester, copy);
  }

  /**
   * The requester left the view without ever holding the session (it died before the answer reached it, or before
   * its buddy had the session): owned here again, above the epoch it was handed out at.
   */
  private void takeBack(String id, Handover handover) {
    if (!pending.remove(id, handover)) {
      return;
    }
    OwnedSession back = engine.takeBack(handover.handed);
    LOG.log(Level.WARNING, "Session [{0}] was handed to {1} at epoch {2}, which never took it: owned here again at epoch"
        + " {3}", id, handover.requester.value(), handover.handed.epoch(), back.epoch());
    if (handover.formerBuddy != null) {
      engine.releaseLater(back, handover.formerBuddy); // kept its copy while the handover was undecided
    }
  }

  private void complete(String id, Handover handover, boolean ended, String why) {
    if (!pending.remove(id, handover)) {
      return;
    }
    LOG.log(Level.DEBUG, "Session [{0}] handed to {1}: done, {2}", id, handover.requester.value(), why);
    release(id, handover, ended);
  }

  /**
   * Whether a graceful leave must still wait: a handover is undecided, or a release that ends one is not answered yet.
   * Leaving with a release unanswered, the release dies with its connection and the former buddy adopts its stale copy
   * at the requester's epoch; leaving with a handover undecided, either that happens or, if the requester never had
   * the session, the session is lost with the copy kept here (the simulation found both).
   */
  boolean unsettled() {
    return !pending.isEmpty() || releasing.get() > 0;
  }

  /** How many handovers are undecided now. */
  int undecided() {
    return pending.size();
  }

  private CompletableFuture<Message> release(String id, Handover handover, boolean ended) {
    NodeId to = handover.formerBuddy;
    if (to == null) {
      return CompletableFuture.completedFuture(null);
    }
    InvalidateReason reason = ended ? InvalidateReason.INVALIDATED : InvalidateReason.RELEASED;
    releasing.incrementAndGet();
    CompletableFuture<Message> reply =
        transport.request(to, new Message.Invalidate(id, handover.heldEpoch, handover.heldVersion, reason));
    reply.whenComplete((answer, failure) -> {
      releasing.decrementAndGet();
      if (failure != null && handover.session != null) {
        engine.releaseLater(handover.session, to); // a copy left there would be adopted, stale, when this node leaves
      }
    });
    return reply;
  }
}
