package io.tandem.core.replicator;

import io.tandem.core.logging.RateLimitedLog;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Nack;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The backup side: answers other members' messages. Updates go to the bytes-only {@link BackupStore}, unless this
 * node owns the session at the same or a higher epoch, in which case the sender is a former owner whose write must
 * be refused (and so detected) rather than stored.
 *
 * <p>Implementation notes: stateless apart from its collaborators; called on transport threads, never
 * concurrently for one sender (the transport contract), possibly concurrently for different senders.
 */
final class IncomingRequests {
  private final NodeId local;
  private final BackupStore backups;
  private final OwnedSessions owned;
  private final Consumer<SessionSnapshot> adoptHandoff;
  private final java.util.function.BiConsumer<OwnedSession, String> fence;
  private final java.util.function.BiFunction<NodeId, Message.Migrate, Message> migrate;
  private final java.util.function.Predicate<String> unconfirmed;
  /** Told of every session id stored here as a backup, so that it is no longer remembered as unknown. */
  private final Consumer<String> appeared;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;
  /** The sessions this node handed out and is not yet released of ({@link Handovers}). */
  private final HandingOut handingOut;

  /** See {@link Handovers}. */
  interface HandingOut {
    /** A message showed that {@code from} holds {@code id}: see {@link Handovers#heldBy}. */
    void heldBy(NodeId from, String id, long epoch, boolean ended);

    /** The copy of {@code id} this node handed out and still keeps, if it is being handed out. */
    Optional<SessionSnapshot> handing(String id);

    /** The epoch at which this node handed {@code id} to another member, if it did within the last SYNC wait. */
    OptionalLong justHandedAt(String id);

    /** Whether this node's copy of {@code id} at {@code epoch} gives way to {@code from}'s: see {@link HoldersBuddyReleases#yieldsTo}. */
    boolean yieldsTo(NodeId from, String id, long epoch);

    /** {@code id} was fenced here by an owner's claim at {@code epoch}: see {@link Migrations#fencedByAClaimAt}. */
    void fencedByAClaimAt(String id, long epoch);
  }

  IncomingRequests(
      NodeId local,
      BackupStore backups,
      OwnedSessions owned,
      Consumer<SessionSnapshot> adoptHandoff,
      java.util.function.BiConsumer<OwnedSession, String> fence,
      java.util.function.BiFunction<NodeId, Message.Migrate, Message> migrate,
      java.util.function.Predicate<String> unconfirmed,
      java.util.function.Predicate<NodeId> member,
      Consumer<String> appeared,
      ReplicationCounters counters,
      RateLimitedLog log,
      HandingOut handingOut) {
    this.handingOut = handingOut;
    this.member = member;
    this.local = local;
    this.backups = backups;
    this.owned = owned;
    this.adoptHandoff = adoptHandoff;
    this.fence = fence;
    this.migrate = migrate;
    this.unconfirmed = unconfirmed;
    this.appeared = appeared;
    this.counters = counters;
    this.log = log;
  }

  /** Whether a node is in this node's view: only a member's copies are stored here (see {@link #answer}). */
  private final java.util.function.Predicate<NodeId> member;

  CompletionStage<Message> handle(NodeId from, Message request) {
    return CompletableFuture.completedFuture(answer(from, request));
  }

  private Message answer(NodeId from, Message request) {
    if (request instanceof Message.FullSession full) {
      SessionSnapshot s = full.snapshot();
      appeared.accept(s.id());
      // A request's flush (or its re-send within the request's wait): the session was accessed a moment ago.
      return stored(from, s.id(), s.epoch(), store(from, s.id(), s.epoch(), () -> backups.applyFullAfterAnAccess(from, s)));
    }
    if (request instanceof Message.SessionDelta delta) { // every SYNC request: no Supplier to allocate
      Message refused = refusedHere(from, delta.sessionId(), delta.epoch());
      return stored(from, delta.sessionId(), delta.epoch(),
          refused != null ? refused : backups.applyDelta(from, delta));
    }
    if (request instanceof Message.TouchBatch batch) {
      return backups.applyTouches(from, batch);
    }
    if (request instanceof Message.Invalidate invalidate) {
      // The new owner of a session handed out from here releases (or ends) this node's copy once it is protected.
      handingOut.heldBy(from, invalidate.sessionId(), invalidate.epoch(),
          invalidate.reason() != Message.InvalidateReason.RELEASED);
      return ownedHere(from, invalidate.sessionId(), invalidate.epoch()).orElseGet(() -> backups.invalidate(from, invalidate));
    }
    if (request instanceof Message.IdChange change) {
      appeared.accept(change.newId());
      return stored(from, change.oldId(), change.epoch(),
          store(from, change.oldId(), change.epoch(), () -> backups.changeId(from, change)));
    }
    if (request instanceof Message.BulkTransfer bulk) {
      List<Message.BulkRefusals.Refusal> refusals = new ArrayList<>(0);
      for (SessionSnapshot s : bulk.sessions()) {
        appeared.accept(s.id());
        if (bulk.purpose() == Message.BulkTransfer.Purpose.HANDOFF) {
          adoptHandoff.accept(s);
        } else if (stored(from, s.id(), s.epoch(), store(from, s.id(), s.epoch(), () -> backups.applyFull(from, s)))
            instanceof Nack refused) {
          refusals.add(new Message.BulkRefusals.Refusal(s.id(), refused));
        }
      }
      // Each refusal is reported, not swallowed: the owner would otherwise count a copy protected that is not here.
      return refusals.isEmpty() ? new Message.Ack(0, 0) : new Message.BulkRefusals(refusals);
    }
    if (request instanceof Message.Locate locate) {
      return locate(from, locate.sessionId());
    }
    if (request instanceof Message.Migrate move) {
      return migrate.apply(from, move);
    }
    counters.refusedByBuddy.increment();
    log.warn("unsupported:" + from, "Node " + from.value() + " sent a " + request.type() + " request, which "
        + local.value() + " does not answer");
    return new Nack(Nack.Reason.UNSUPPORTED, 0, 0, request.type() + " is not a request this node answers");
  }

  /**
   * A copy, delta or id change from {@code from} for session {@code id} at {@code epoch}: refused (and so fenced) when
   * this node owns the session at that epoch or later, or when the store refuses it anyway (ended here, or held at a
   * later epoch); otherwise stored, but only from a member of this node's view.
   *
   * <p>A node the view does not list (dropped while it was paused or cut off, and not merged back yet) still takes
   * itself for an owner. Its copy stored here would be an orphan at once, promoted by the next request at the next
   * epoch while the sender went on serving its own (reads need no buddy): a logged-out session was read back so in the
   * simulation (docs/protocol.md 11.2). Refused with {@code REFUSED}, the sender answers 503 until the views agree.
   */
  private Message store(NodeId from, String id, long epoch, Supplier<Message> apply) {
    Message refused = refusedHere(from, id, epoch);
    return refused != null ? refused : apply.get();
  }

  /** {@link #store}'s refusal, or null when the update is to be applied. */
  private Message refusedHere(NodeId from, String id, long epoch) {
    Optional<Message> owner = ownedHere(from, id, epoch);
    if (owner.isPresent()) {
      return owner.get();
    }
    if (!member.test(from)) {
      Optional<Nack> fencing = backups.refusal(id, epoch);
      if (fencing.isPresent()) {
        return fencing.get();
      }
      counters.refusedByBuddy.increment();
      return Nack.refused(Nack.Refusal.NOT_A_MEMBER, "node " + from.value() + " is not a member of " + local.value()
          + "'s view; its copies are stored once the membership lists it again");
    }
    return null;
  }

  /** {@code answer}, after telling {@link #handingOut} when it stored {@code from}'s update here. */
  private Message stored(NodeId from, String id, long epoch, Message answer) {
    if (answer instanceof Message.Ack) {
      handingOut.heldBy(from, id, epoch, false);
    }
    return answer;
  }

  private Message locate(NodeId from, String id) {
    Optional<OwnedSession> session = owned.get(id);
    if (session.isPresent() && unconfirmed.test(id)) {
      // Owned here before a pause and not confirmed since: the cluster may have moved on (even ended it). Claiming
      // it would let another node migrate a stale copy; but it may also be the only copy there is, so the asker must
      // not take the session for absent either: it exists, unconfirmed, until this node has asked the others.
      return new Message.LocateReply(id, Message.LocateReply.Holding.UNCONFIRMED, session.get().epoch(), session.get().version());
    }
    if (session.isPresent()) {
      return new Message.LocateReply(id, Message.LocateReply.Holding.PRIMARY, session.get().epoch(), session.get().version());
    }
    Optional<BackupStore.BackupEntry> backup = backups.entry(id);
    if (backup.isPresent() && backup.get().owner().equals(from)) {
      if (!member.test(from)) {
        // The owner asks (confirming its session after a pause) while this node's view no longer lists it: this node
        // adopts the copy as soon as that view stands, so it must not be told "held here at your epoch" and serve on.
        // It exists, unconfirmed: the owner asks again, and finds it moved on once adopted (11.3.13).
        return new Message.LocateReply(id, Message.LocateReply.Holding.UNCONFIRMED, backup.get().snapshot().epoch(),
            backup.get().snapshot().version());
      }
      // The answer lets the owner serve on for a while: the store records when, and the copy is not adopted from it
      // meanwhile (11.3.13). A copy this node began to claim a moment ago is not confirmed: unconfirmed, as above.
      Optional<BackupStore.Confirmation> confirmation = backups.confirmToOwner(id, from);
      if (confirmation.isPresent() && !confirmation.get().confirmed()) {
        SessionSnapshot claimed = confirmation.get().entry().snapshot();
        return new Message.LocateReply(id, Message.LocateReply.Holding.UNCONFIRMED, claimed.epoch(), claimed.version());
      }
      backup = confirmation.map(BackupStore.Confirmation::entry);
    }
    if (backup.isPresent()) {
      return new Message.LocateReply(id, Message.LocateReply.Holding.BACKUP, backup.get().snapshot().epoch(), backup.get().snapshot().version());
    }
    Optional<SessionSnapshot> handing = handingOut.handing(id);
    if (handing.isPresent()) {
      // Handed to a member that has not shown it holds it: it exists (here, if the requester never installed it), and
      // may not be taken from here. "None" would let the asker start an empty session in its place (the simulation
      // found this).
      return new Message.LocateReply(id, Message.LocateReply.Holding.UNCONFIRMED, handing.get().epoch(), handing.get().version());
    }
    OptionalLong ended = backups.endedAt(id);
    if (ended.isPresent()) {
      return new Message.LocateReply(id, Message.LocateReply.Holding.ENDED, ended.getAsLong(), 0);
    }
    OptionalLong handedAt = handingOut.justHandedAt(id);
    if (handedAt.isPresent()) {
      // Handed to another member a moment ago, and held there: but a Locate that reached that member while its
      // migration was in flight was answered "none" there too, and "none" from every member let the asker start an
      // empty session in its place (soak seed 74073, docs/protocol.md 11.3.24). It exists: ask again. At the epoch it
      // was handed at: a former holder deciding its own handover took a bare "unconfirmed" for nobody above it and took
      // the session back, beside the member it went on to (soak seed 175377, 11.3.35).
      return new Message.LocateReply(id, Message.LocateReply.Holding.UNCONFIRMED, handedAt.getAsLong(), 0);
    }
    return new Message.LocateReply(id, Message.LocateReply.Holding.NONE, 0, 0);
  }

  /**
   * A refusal when this node owns the session at the same or a newer epoch than the sender claims. When it owns an
   * older epoch, the sender has taken the session over: the local copy is fenced and the update stored as a backup.
   *
   * <p>An ownership not confirmed since a pause or a cut ({@link Quarantine}) refuses without fencing the sender
   * ({@code REFUSED}, not {@code STALE_EPOCH}): a node cut off from the others may have adopted its backup at a
   * higher epoch while the owner went on writing at its own with another buddy, and that stale copy must not make
   * the owner drop the newest one. The sender keeps its copy and retries, or answers 503; this node confirms its own
   * with every member first (the quarantine's tick, or the next request for it) and drops it if the owner holds the
   * session, after which the owner's next update is stored here as a backup.
   */
  private Optional<Message> ownedHere(NodeId from, String id, long epoch) {
    Optional<OwnedSession> mine = owned.get(id);
    if (mine.isEmpty()) {
      return Optional.empty();
    }
    OwnedSession session = mine.get();
    if (session.epoch() < epoch) {
      fence.accept(session, "another node owns it at epoch " + epoch + " (this node had epoch " + session.epoch() + ")");
      return fencedAt(id, epoch);
    }
    if (session.epoch() == epoch && handingOut.yieldsTo(from, id, epoch)) {
      fence.accept(session, from.value() + ", the buddy of the member that handed it here, adopted it at epoch " + epoch
          + " before this node's release reached it");
      return fencedAt(id, epoch);
    }
    if (unconfirmed.test(id)) {
      return Optional.of(Nack.refused(Nack.Refusal.UNCONFIRMED_HERE, session.epoch(), session.version(), "session " + id
          + " is owned by " + local.value() + " at epoch " + session.epoch() + " but not confirmed since it was paused or"
          + " cut off; it asks the other members first, retry in a moment"));
    }
    if (!session.isActive()) {
      // Let go of since it was looked up: a confirmation that yields fences the copy before it stops being suspect,
      // so a check of the suspect flag that came too late lands here, and must not refuse with a copy now gone.
      return Optional.of(Nack.refused(Nack.Refusal.LET_GO_A_MOMENT_AGO, session.epoch(), session.version(), "session " + id
          + " was let go of on " + local.value() + " a moment ago; retry"));
    }
    return Optional.of(refusal(id, session));
  }

  /**
   * The refusal once {@code id} was to be fenced by a claim at {@code epoch}: none if it was (the update is stored as
   * a backup), and the let-go memory then names that epoch, not "above any": a late answer of a {@code Migrate} this
   * node sent before, at a later epoch, is the newer copy and is installed. Dropped as older, it was the only copy
   * left: the holder, told by a stale message that this node held the session, had let go of its own (the simulation,
   * seed 808431, 11.3.49).
   */
  private Optional<Message> fencedAt(String id, long epoch) {
    Optional<Message> refused = owned.get(id).filter(still -> still.epoch() >= epoch).map(still -> refusal(id, still));
    if (refused.isEmpty()) {
      handingOut.fencedByAClaimAt(id, epoch);
    }
    return refused;
  }

  private Nack refusal(String id, OwnedSession session) {
    return new Nack(Nack.Reason.STALE_EPOCH, session.epoch(), session.version(),
        "session " + id + " is owned by " + local.value() + " at epoch " + session.epoch());
  }
}
