package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiPredicate;

/**
 * The holder's side of a migration: answers a member's {@link Message.Migrate} by handing the session over at the new
 * epoch (owned here, or a backup whose owner is gone) and letting go of it here, or by saying why not with a typed
 * refusal (docs/protocol.md 3.3). Every hand-over is recorded in {@link Handovers} before it leaves, so the holder
 * keeps its copy (and its buddy theirs) until the requester shows it holds the session, and in the handed-away memory.
 *
 * <p>Implementation notes: no state of its own (the handed-away and just-handed memories are {@link Migrations}'s,
 * shared here). Called on transport threads; a session is fenced and captured under its own lock ({@link
 * OwnedSession#handOver}), a backup taken from the store under the store's; nothing here waits or sends.
 */
final class MigrateAnswers {
  private final NodeId local;
  private final Migrations.Engine engine;
  private final OwnedSessions owned;
  private final BackupStore backups;
  private final Handovers handovers;
  private final HoldersBuddyReleases releases;
  private final Quarantine quarantine;
  private final LeftoverCopies leftovers;
  private final FlushRules rules;
  private final ReplicationCounters counters;
  /** Ids let go of here a moment ago, with the epoch they were let go at (see {@link Migrations}). */
  private final RecentIds handedAway;
  /** Ids handed over within the holder's wait, with the epoch they were handed at (see {@link Migrations}). */
  private final RecentIds justHanded;
  /** How long a copy confirmed to its owner stays its owner's (the pause threshold, 11.3.13). */
  private final Duration ownerLease;
  /** Whether this node's copy of a session was confirmed to its owner, not the asker, a moment ago. */
  private final BiPredicate<String, NodeId> confirmedToItsOwner;

  MigrateAnswers(NodeId local, Migrations.Engine engine, OwnedSessions owned, BackupStore backups, Handovers handovers,
      HoldersBuddyReleases releases, Quarantine quarantine, LeftoverCopies leftovers, FlushRules rules,
      ReplicationCounters counters, RecentIds handedAway, RecentIds justHanded, Duration ownerLease,
      BiPredicate<String, NodeId> confirmedToItsOwner) {
    this.local = local;
    this.engine = engine;
    this.owned = owned;
    this.backups = backups;
    this.handovers = handovers;
    this.releases = releases;
    this.quarantine = quarantine;
    this.leftovers = leftovers;
    this.rules = rules;
    this.counters = counters;
    this.handedAway = handedAway;
    this.justHanded = justHanded;
    this.ownerLease = ownerLease;
    this.confirmedToItsOwner = confirmedToItsOwner;
  }

  /**
   * Another member asked for a session: hand it over at the new epoch and let go of it here. A requested epoch of 0
   * means the epoch after the one held here (the asker did not look the session up first).
   */
  Message answer(NodeId requester, Message.Migrate move) {
    String id = move.sessionId();
    MembershipView current = engine.view();
    if (current == null || !current.contains(requester)) {
      // A node the membership dropped (it was paused or cut off, and has not noticed yet) would hold the session
      // where no member can find it or back it up: a request elsewhere would then get a new, empty session.
      return Message.Nack.refused(Message.Nack.Refusal.NOT_A_MEMBER, "session " + id + " is not handed to " + requester.value()
          + ", which is not a member of " + local.value() + "'s view " + current);
    }
    Optional<Message> again = handovers.answerAgain(requester, id);
    if (again.isPresent()) {
      return again.get();
    }
    Optional<OwnedSession> mine = owned.get(id);
    SessionSnapshot snapshot;
    long newEpoch;
    if (mine.isPresent() && releases.pending(id)) {
      // Handed on, its release would be forgotten by nobody but the former holder's buddy's copy would stay, adoptable
      // beside the requester's once that holder dies (11.3.34): the session moves on once the release is answered.
      return Message.Nack.refused(Message.Nack.Refusal.RELEASE_PENDING, "session " + id + " was just migrated to "
          + local.value() + ", whose release of the former holder's buddy's copy is not answered yet; retry");
    }
    // A pause that just ended is noticed before the session is handed out: the transport may run a request queued
    // during the pause before the pause watch's next look, and the membership may have moved the session on meanwhile
    // (its buddy adopted it): handed out, the copy made a second owner at the same epoch (the simulation, seed 1631 of
    // the nemesis's second generation).
    quarantine.checkPause();
    if (mine.isPresent() && quarantine.isSuspect(id)) {
      return Message.Nack.refused(Message.Nack.Refusal.UNCONFIRMED_HERE,
          "session " + id + " has not been confirmed since " + local.value() + " was paused; its copy may be stale");
    }
    if (mine.isPresent()) {
      OwnedSession session = mine.get();
      newEpoch = Claims.askedOr(move.newEpoch(), session.epoch());
      if (session.epoch() >= newEpoch) {
        return new Message.Nack(Message.Nack.Reason.STALE_EPOCH, session.epoch(), session.version(), "owned here at epoch " + session.epoch());
      }
      // Fenced and captured in one step: a flush prepared before is in the snapshot, one after it is answered 503.
      Optional<OwnedSession.HandOver> handed = session.handOver();
      if (handed.isEmpty() && session.isFenced() && !session.isGone()) {
        // Being handed to the buddy as this node leaves, or let go of to another owner a moment ago: it exists. Not
        // "unknown", which, with its backup's holder refusing too, would let the asker start an empty session.
        return Message.Nack.refused(Message.Nack.Refusal.BEING_HANDED,
            "session " + id + " is being handed to another member by " + local.value() + "; ask every member");
      }
      if (handed.isEmpty()) {
        return new Message.Nack(Message.Nack.Reason.UNKNOWN_SESSION, 0, 0, "session " + id + " ended meanwhile");
      }
      snapshot = OwnedSession.encode(handed.get(), rules); // before the container drops its copy and its attributes
      engine.retireFenced(session, "migrated to " + requester.value());
      handedAway.add(id, newEpoch);
      justHanded.add(id, newEpoch);
      // The buddy keeps its copy until the requester shows it holds the session (Handovers): a reply lost on the way
      // must not lose the session with it.
      SessionSnapshot copy = new SessionSnapshot(id, newEpoch, snapshot.version(), snapshot.metadata(), snapshot.attributes());
      handovers.begin(id, requester, copy, engine.buddy(), session, session.epoch(), session.version());
      counters.sessionsMigratedOut.increment();
      return new Message.FullSession(copy);
    } else {
      Optional<NodeId> liveOwner = backups.entry(id).map(BackupStore.BackupEntry::owner)
          .filter(owner -> current != null && current.contains(owner) && !owner.equals(requester));
      if (leftovers.isDoubted(id)) {
        // Kept here through a quarantine while its owner left or restarted (11.3.43), whoever asks, its restarted
        // owner too: this node adopts it itself once no member holds it as new or ended it, and hands it on from there.
        return Message.Nack.refused(Message.Nack.Refusal.LEFTOVER_UNCONFIRMED, "session " + id + " is held on "
            + local.value() + " as a copy kept through a quarantine, not yet confirmed; ask every member again");
      }
      if (liveOwner.isPresent()) {
        // The owner may have changed the session since this copy; giving the copy away would also tombstone it
        // here and so make the owner's next update fail: the requester must migrate it from the owner.
        return Message.Nack.refused(Message.Nack.Refusal.OWNER_ALIVE,
            "session " + id + " is owned by " + liveOwner.get().value() + ", which is alive; migrate it from there");
      }
      if (confirmedToItsOwner.test(id, requester)) {
        return Message.Nack.refused(Message.Nack.Refusal.CONFIRMED_TO_OWNER, "session " + id + " was confirmed to its owner by "
            + local.value() + " a moment ago, and the owner may serve it until that runs out; ask again in a moment");
      }
      boolean ownerLeft = backups.entry(id).map(held -> !current.contains(held.owner())).orElse(false);
      if (ownerLeft && leftovers.holdsLeftover(id)) {
        // Left from when this node was the owner's buddy, maybe older than the heir's copy (LeftoverCopies): this
        // node adopts it itself once no member holds it as new, and hands it on from there.
        return Message.Nack.refused(Message.Nack.Refusal.LEFTOVER_UNCONFIRMED, "session " + id + " is held on " + local.value()
            + " as a copy left from when it was its owner's buddy, not yet confirmed; ask every member again");
      }
      Optional<BackupStore.BackupEntry> backup = backups.entry(id);
      if (backup.isEmpty()) {
        OptionalLong ended = backups.endedAt(id);
        if (ended.isPresent()) {
          // The asker may hold a copy from before the end (a buddy that was frozen when it came): it must drop it.
          return new Message.Nack(Message.Nack.Reason.INVALIDATED, ended.getAsLong(), 0,
              "session " + id + " ended on " + local.value() + " at epoch " + ended.getAsLong());
        }
        if (handedAway.contains(id)) {
          return Message.Nack.refused(Message.Nack.Refusal.HANDED_AWAY,
              "session " + id + " was handed to another member a moment ago; ask every member");
        }
        return new Message.Nack(Message.Nack.Reason.UNKNOWN_SESSION, 0, 0, "session " + id + " is not held here");
      }
      snapshot = backup.get().snapshot();
      newEpoch = Claims.askedOr(move.newEpoch(), snapshot.epoch());
      if (snapshot.epoch() >= newEpoch) {
        return new Message.Nack(Message.Nack.Reason.STALE_EPOCH, snapshot.epoch(), snapshot.version(), "backup is at epoch " + snapshot.epoch());
      }
      return handOutBackup(requester, backup.get(), newEpoch);
    }
  }

  /**
   * Hands {@code backup} to {@code requester} at {@code newEpoch}: the handover is recorded before the copy leaves the
   * store, so that a request for the session on this node meanwhile finds the one or the other (it is answered 503
   * while the handover is undecided). Taken out first, the copy was in neither place for a moment, and such a request
   * asked the cluster, which answered "nowhere" (the requester has not installed it yet): the same window as the
   * heir's adoption had (docs/protocol.md 11.3.15). A copy that changed or went meanwhile (promoted here by that
   * request, or updated) is not handed out: the requester is told to ask again.
   */
  private Message handOutBackup(NodeId requester, BackupStore.BackupEntry backup, long newEpoch) {
    SessionSnapshot held = backup.snapshot();
    String id = held.id();
    SessionSnapshot handed = new SessionSnapshot(id, newEpoch, held.version(), held.metadata(), held.attributes());
    Handovers.Handover handover = handovers.tentative(id, requester, handed, held.epoch(), held.version());
    if (backups.takeIf(id, backup.owner(), held.epoch(), held.version(),
        requester.equals(backup.owner()) ? Duration.ZERO : ownerLease).isEmpty()) {
      handovers.withdraw(id, handover);
      return Message.Nack.refused(Message.Nack.Refusal.CHANGED_WHILE_HANDED_OUT, "session " + id + " changed on " + local.value()
          + " while it was being handed out; ask every member again");
    }
    backups.refuseUpTo(id, refusedAfterHandingOut(backup, requester));
    handovers.handedOut(handover);
    // Let go of for another owner, as an owned session handed away is: once the handover is done nothing else here
    // says so, and a request here whose route names the dead owner (this node its successor) heard "not held" from
    // the owner's next run and answered "no such session" for one its requester owned (soak seed 345050,
    // docs/protocol.md 11.3.39). Remembered, every member is asked, and a member asking is told to do the same.
    handedAway.add(id, newEpoch);
    // And on its way, as an owned session handed out is: until the requester installs it, a member it is asked of
    // answers "none", and this node's own request, which began while the copy was here, must not take "nowhere" for
    // an answer (the parallel-requests drill through HAProxy: a new, empty session; docs/protocol.md 11.3.51).
    justHanded.add(id, newEpoch);
    counters.sessionsMigratedOut.increment();
    return new Message.FullSession(handed);
  }

  /**
   * The epoch up to which this node refuses a session's updates once it handed its backup out: the backup's, so that
   * its owner, fenced by the move, cannot store a late write here; but one less when the asker is that owner itself.
   * An owner asks for its own session when it restarted, and also when one of its requests looked for the session
   * while the node adopted it meanwhile (a handoff arrived, and its copy reached this buddy before the ask did). The
   * asker then keeps the session it owns, drops the copy it was sent, and goes on writing at its epoch: refusing that
   * epoch here would fence the only live copy, with the backup gone (the rolling-restart drill lost a session so).
   * Its writes at that epoch re-protect the session here (a delta finds no backup, and the full session follows).
   */
  private static long refusedAfterHandingOut(BackupStore.BackupEntry handedOut, NodeId requester) {
    long epoch = handedOut.snapshot().epoch();
    return handedOut.owner().equals(requester) ? epoch - 1 : epoch;
  }
}
