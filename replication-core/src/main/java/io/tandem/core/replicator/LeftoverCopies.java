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
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Copies held since before a quarantine whose owner left or restarted meanwhile are confirmed the same way,
 * whatever the ring says ({@link #doubt}): while this node was paused or cut off, the owner may have moved its buddy
 * elsewhere, written on and ended sessions there, and then died or restarted. Adopted without asking, such a copy
 * brought an ended session back, or served values older than the owner's last 200 (docs/protocol.md 11.3.43).
 *
 * <p>Implementation notes: its one piece of state, {@code doubted}, is a concurrent map written by the maintenance
 * thread (as the quarantine lifts) and read by request and transport threads; an entry names the exact copy it is
 * about (owner, epoch, version), so a copy replaced since (its live owner's next update) is no longer in doubt.
 * {@link #confirm} blocks the calling thread (a request's, or the maintenance thread's) for at most one ack timeout;
 * the backup is taken or dropped only if it is still the copy the members were asked about, so an update that
 * replaced it meanwhile (the heir's re-protection) is kept.
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
    UNDECIDED,
    /** Its owner answered that it holds the session at this copy's epoch: the live owner's backup, kept as it is. */
    KEPT
  }

  /** One copy in doubt: the copy held when the doubt arose, recognised by its owner, epoch and version. */
  private record Doubt(NodeId owner, long epoch, long version) {
    boolean isAbout(BackupStore.BackupEntry held) {
      return held.owner().equals(owner) && held.snapshot().epoch() == epoch && held.snapshot().version() == version;
    }
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
  /** Copies held since before a quarantine, of owners that left or restarted meanwhile, by id (see {@link #doubt}). */
  private final Map<String, Doubt> doubted = new ConcurrentHashMap<>();

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

  /** Whether this node holds a leftover copy of session {@code id}, or one in doubt (see {@link #doubt}). */
  boolean holdsLeftover(String id) {
    return backups.entry(id).map(held -> isLeftover(held.owner()) || isDoubted(held)).orElse(false);
  }

  /**
   * {@code held} was kept here through a quarantine, and its owner left or restarted meanwhile: it is taken over only
   * as a leftover copy is, once every other member answered and none holds the session as new (or ended it).
   */
  void doubt(BackupStore.BackupEntry held) {
    doubted.put(held.snapshot().id(), new Doubt(held.owner(), held.snapshot().epoch(), held.snapshot().version()));
  }

  /** How many copies are in doubt now. */
  int doubtedCount() {
    return doubted.size();
  }

  /** Whether this node's copy of {@code id} is in doubt (see {@link #doubt}). */
  boolean isDoubted(String id) {
    return backups.entry(id).map(this::isDoubted).orElse(false);
  }

  boolean isDoubted(BackupStore.BackupEntry held) {
    Doubt doubt = doubted.get(held.snapshot().id());
    return doubt != null && doubt.isAbout(held);
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
    boolean doubt = isDoubted(asked.get());
    boolean ownerServesIt = false;
    for (Map.Entry<NodeId, Message.LocateReply> answer : answers.replies().entrySet()) {
      if (answer.getKey().equals(owner) && ownsItAt(answer.getValue(), mine.epoch())) {
        ownerServesIt = true; // its owner, not a copy alike: decided below, once no other member supersedes the copy
      } else if (supersedes(answer.getKey(), answer.getValue(), mine, heir)) {
        if (backups.takeIf(id, owner, mine.epoch(), mine.version()).isPresent()) {
          LOG.log(doubt ? Level.DEBUG : Level.INFO, "Node {0}: dropped its copy of session [{1}] (owner {2}, epoch {3},"
              + " version {4}), {5}: {6} holds it as new or newer, or ended it", local.value(), id, owner.value(),
              mine.epoch(), mine.version(), provenance(doubt, owner), answer.getKey().value());
        }
        return Verdict.DROPPED;
      }
    }
    if (ownerServesIt) {
      return Verdict.KEPT; // the owner runs and serves it at this epoch: this is its backup (a restarted owner's session)
    }
    if (!answers.silent().isEmpty()) {
      return Verdict.UNDECIDED;
    }
    Predicate<BackupStore.BackupEntry> same = held -> held.owner().equals(owner)
        && held.snapshot().epoch() == mine.epoch() && held.snapshot().version() == mine.version();
    Optional<OwnedSession> adopted = adopt.apply(id, same);
    if (adopted.isEmpty()) {
      // Still held as asked: not claimable yet (confirmed to its owner a moment ago, 11.3.13); asked again later.
      return backups.entry(id).filter(same).isPresent() ? Verdict.UNDECIDED : Verdict.DROPPED;
    }
    OwnedSession session = adopted.get();
    LOG.log(doubt ? Level.DEBUG : Level.INFO, "Node {0}: adopted session [{1}] of {2} at epoch {3} from the copy {4}:"
        + " every other member answered and none holds it as new", local.value(), id, owner.value(), session.epoch(),
        provenance(doubt, owner));
    return Verdict.ADOPTED;
  }

  private static String provenance(boolean doubted, NodeId owner) {
    return doubted ? "kept through a quarantine while " + owner.value() + " left or restarted"
        : "left from when it was " + owner.value() + "'s buddy";
  }

  /** Whether {@code answer} says its sender owns and serves the session at {@code epoch}. */
  private static boolean ownsItAt(Message.LocateReply answer, long epoch) {
    return answer.epoch() == epoch && answer.holding() == Message.LocateReply.Holding.PRIMARY;
  }

  /**
   * Confirms the copies in doubt, then the leftover copies of owners that left {@code current}, at most {@link
   * #PER_ROUND} of them: the maintenance thread also paces re-protection. Stops at the first member that stays silent
   * (each question would wait an ack timeout for it again), leaving the rest for the next tick. A copy stays in doubt
   * until it is adopted, dropped, replaced, or found to be its live owner's.
   */
  void confirmDeparted(MembershipView current) {
    boolean[] someoneSilent = new boolean[1];
    int asked = confirmDoubted(someoneSilent);
    if (someoneSilent[0] || asked >= PER_ROUND) {
      return;
    }
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
   * Confirms the copies in doubt, at most {@link #PER_ROUND}, until a member is silent; returns how many were asked
   * about. Logs once when the last doubt is decided (each copy's verdict is logged at DEBUG: there may be thousands).
   */
  private int confirmDoubted(boolean[] someoneSilent) {
    if (doubted.isEmpty()) {
      return 0;
    }
    int asked = 0;
    for (Map.Entry<String, Doubt> doubt : List.copyOf(doubted.entrySet())) {
      String id = doubt.getKey();
      if (backups.entry(id).filter(doubt.getValue()::isAbout).isPresent()) {
        Verdict verdict = confirm(id, someoneSilent);
        asked++;
        if (verdict == Verdict.KEPT || backups.entry(id).filter(doubt.getValue()::isAbout).isEmpty()) {
          doubted.remove(id, doubt.getValue());
        }
      } else {
        doubted.remove(id, doubt.getValue()); // adopted, dropped or replaced since
      }
      if (someoneSilent[0] || asked >= PER_ROUND) {
        return asked;
      }
    }
    if (doubted.isEmpty()) {
      LOG.log(Level.INFO, "Node {0}: every copy kept through the quarantine is decided: adopted, dropped, or its owner''s"
          + " still", local.value());
    }
    return asked;
  }


  /**
   * Whether {@code holder}'s answer makes this node's copy not the one to keep: a copy at a newer epoch (taken over
   * since) or an end at this epoch or after; at the same epoch, a newer version, or the same one held by the heir
   * (which adopts it) or, unless this node is the heir, by a member with a greater id (so that of two leftovers alike
   * exactly one is kept).
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
    // The heir never yields on a tie: the other holder yields to it, and both yielding at once lost both copies.
    return heir.map(holder::equals).orElse(false) || !heir.map(local::equals).orElse(false) && holder.compareTo(local) > 0;
  }
}
