package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.ring.BuddyRing;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Backups held here of an owner whose buddy, by the ring, is another member: copies left from when this node was its
 * buddy. After a view change the owner re-protects its sessions on the new buddy and releases this node's copies at
 * its next maintenance tick; from the first write on the new buddy, a copy here is older than the owner's last 200.
 * Adopted or promoted as a buddy's copy is when the owner dies in between, it made a second owner at the same epoch
 * as the new buddy's adoption, and the older copy could win. So such a copy is taken over only once every other
 * member answered and none holds the session as new or newer (then it is the only copy, as when the owner died
 * before its new buddy had it); a member holding a newer copy, or one the ring names heir holding as new, makes it
 * dropped here; a silent member leaves it undecided (a request for it is answered 503, the next tick asks again).
 *
 * <p>Implementation notes: no state of its own. {@link #confirm} blocks the calling thread (a request's, or the
 * maintenance thread's) for at most one ack timeout; the backup is taken or dropped only if it is still the copy
 * the members were asked about, so an update that replaced it meanwhile (the heir's re-protection) is kept.
 */
final class LeftoverCopies {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  /** What asking the other members came to. */
  enum Verdict {
    /** No member holds it as new: adopted here. */
    ADOPTED,
    /** Another member holds it as new or newer (or ended it), or the copy changed meanwhile: not this node's. */
    DROPPED,
    /** A member did not answer: kept as it is, asked again later. */
    UNDECIDED
  }

  /** Leftovers confirmed per maintenance round at most (one Locate to every member each). */
  static final int PER_ROUND = 500;

  private final NodeId local;
  private final BackupStore backups;
  private final Locator locator;
  /** The view replication works with (without the members the transport found gone). */
  private final Supplier<MembershipView> view;
  /**
   * Takes ownership of a session from the copy held here, if that copy is still the one asked about, at the next epoch
   * (owned before the copy leaves the store: see {@link Adoption#adoptBackup}), and queues it for the buddy.
   */
  private final BiFunction<String, Predicate<BackupStore.BackupEntry>, Optional<OwnedSession>> adopt;

  LeftoverCopies(NodeId local, BackupStore backups, Locator locator, Supplier<MembershipView> view,
      BiFunction<String, Predicate<BackupStore.BackupEntry>, Optional<OwnedSession>> adopt) {
    this.local = local;
    this.backups = backups;
    this.locator = locator;
    this.view = view;
    this.adopt = adopt;
  }

  /** Whether a backup of {@code owner}'s is one the ring gives to another member (whether the owner lives or not). */
  boolean isLeftover(NodeId owner) {
    MembershipView current = view.get();
    return current != null && !BuddyRing.successorOf(current, owner).map(local::equals).orElse(false);
  }

  /** Whether this node holds a leftover copy of session {@code id}. */
  boolean holdsLeftover(String id) {
    return backups.entry(id).map(held -> isLeftover(held.owner())).orElse(false);
  }

  /** Asks every other member about this node's leftover copy of {@code id} and adopts or drops it accordingly. */
  Verdict confirm(String id) {
    return confirm(id, new boolean[1]);
  }

  /** {@link #confirm(String)}; sets {@code someoneSilent[0]} when a member did not answer. */
  private Verdict confirm(String id, boolean[] someoneSilent) {
    Optional<BackupStore.BackupEntry> asked = backups.entry(id);
    if (asked.isEmpty()) {
      return Verdict.DROPPED;
    }
    SessionSnapshot mine = asked.get().snapshot();
    NodeId owner = asked.get().owner();
    Locator.Answers answers = locator.ask(id);
    someoneSilent[0] = !answers.silent().isEmpty();
    Optional<NodeId> heir = Optional.ofNullable(view.get()).flatMap(current -> BuddyRing.successorOf(current, owner));
    for (Map.Entry<NodeId, Message.LocateReply> answer : answers.replies().entrySet()) {
      if (supersedes(answer.getKey(), answer.getValue(), mine, heir)) {
        if (backups.takeIf(id, owner, mine.epoch(), mine.version()).isPresent()) {
          LOG.log(Level.INFO, "Node {0}: dropped its copy of session [{1}] (owner {2}, epoch {3}, version {4}), left from"
              + " when it was {2}''s buddy: {5} holds it as new or newer", local.value(), id, owner.value(), mine.epoch(),
              mine.version(), answer.getKey().value());
        }
        return Verdict.DROPPED;
      }
    }
    if (!answers.silent().isEmpty()) {
      return Verdict.UNDECIDED;
    }
    Optional<OwnedSession> adopted = adopt.apply(id, held -> held.owner().equals(owner)
        && held.snapshot().epoch() == mine.epoch() && held.snapshot().version() == mine.version());
    if (adopted.isEmpty()) {
      return Verdict.DROPPED;
    }
    OwnedSession session = adopted.get();
    LOG.log(Level.INFO, "Node {0}: adopted session [{1}] of {2} at epoch {3} from the copy left from when it was {2}''s"
        + " buddy: every other member answered and none holds it as new", local.value(), id, owner.value(), session.epoch());
    return Verdict.ADOPTED;
  }

  /**
   * Confirms the leftover copies of owners that left {@code current}, at most {@link #PER_ROUND} of them: the
   * maintenance thread also paces re-protection. Stops at the first member that stays silent (each question would
   * wait an ack timeout for it again), leaving the rest for the next tick.
   */
  void confirmDeparted(MembershipView current) {
    int asked = 0;
    boolean[] someoneSilent = new boolean[1];
    for (NodeId owner : backups.owners()) {
      if (current.contains(owner) || !isLeftover(owner)) {
        continue;
      }
      for (BackupStore.BackupEntry entry : backups.heldFor(owner)) {
        confirm(entry.snapshot().id(), someoneSilent);
        if (someoneSilent[0] || ++asked >= PER_ROUND) {
          return;
        }
      }
    }
  }

  /**
   * Whether {@code holder}'s answer makes this node's copy not the one to keep: a copy at a newer epoch (taken over
   * since) or an end at this epoch or after; at the same epoch, a newer version, or the same one held by the heir
   * (which adopts it) or by a member with a greater id (so that of two leftovers alike exactly one is kept).
   */
  private boolean supersedes(NodeId holder, Message.LocateReply answer, SessionSnapshot mine, Optional<NodeId> heir) {
    if (answer.holding() == Message.LocateReply.Holding.ENDED) {
      return answer.epoch() >= mine.epoch();
    }
    if (!answer.holding().hasCopy() && answer.holding() != Message.LocateReply.Holding.UNCONFIRMED) {
      return false;
    }
    if (answer.epoch() != mine.epoch()) {
      return answer.epoch() > mine.epoch();
    }
    if (answer.version() != mine.version()) {
      return answer.version() > mine.version();
    }
    return heir.map(holder::equals).orElse(false) || holder.compareTo(local) > 0;
  }
}
