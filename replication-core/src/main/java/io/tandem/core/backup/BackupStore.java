package io.tandem.core.backup;

import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Ack;
import io.tandem.core.wire.Message.Nack;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * The backups this node holds for other owners, as bytes: attribute values are never deserialized here, and no
 * application listener is ever fired. Updates apply in version order within an epoch; anything else is answered
 * with a {@link Nack} that tells the owner what to do (send the full session on a gap, stop owning on a stale
 * epoch). A backup is never expired while its owner is alive: expiry belongs to the owner.
 *
 * <p>A delta is applied in place ({@link HeldBackup}): it costs what it carries, not a copy of the session. The
 * snapshots this store hands out ({@link #entry}, {@link #take}, {@link #heldFor}) are immutable and never change
 * afterwards; one is made (one copy of the attributes) when first asked for after a change.
 *
 * <p>The store holds at most {@code maxBytes} ({@code maxBackupBytes}), counted as {@link
 * SessionSnapshot#serializedSize()}. Past it, it refuses with {@link Nack.Reason#BACKUP_STORE_FULL} a full copy of a
 * session it does not hold, and any full copy or delta that would grow a copy it holds; whatever does not grow the
 * store (a copy that stays the same size or shrinks, a touch, an invalidation, an id change) is always applied, so
 * sessions can end and shrink and room comes back. A copy it holds is never dropped or replaced to make room: it was
 * acknowledged, and its owner counts on it until told otherwise; a refused update leaves it as it was (older than
 * the owner's, but never newer than the owner's last confirmed write, since the refused write is not confirmed) and
 * the refusal tells the owner, which answers 503 and sends the whole session again later. Refusing growth rather than
 * only new sessions keeps the bound a bound: a few growing sessions could otherwise take the heap past it.
 *
 * <p>Implementation notes: striped, not one store-wide monitor. Everything about one session id (its {@link
 * HeldBackup}, found in {@code entries} under that id, and its tombstone) is read and changed only while holding
 * that id's stripe, {@code stripe(id)}, one of {@value #STRIPES} plain monitors chosen by the id's hash; an entry is
 * looked up inside the stripe, never before it. An id change holds the stripes of both ids (in index order) while it
 * moves the backup. {@code entries} and {@code tombstones} are concurrent maps, so that the buddy's selector threads
 * (one per owner connection) apply updates of different sessions at once, and the scans ({@link #expireOrphans},
 * {@link #heldFor}, {@link #owners}) walk them without any lock and take each id's stripe only for that id, briefly:
 * the maintenance tick's orphan scan no longer holds a lock the selector threads wait for while it walks every
 * backup. {@code bytesHeld} stays exact and bounded: an update that grows the store first reserves its growth with a
 * compare-and-set that fails past {@code maxBytes} (the refusal), and settles the difference once applied; the
 * counters are adders. A stripe's monitor is held for map operations on bytes already decoded, and never while
 * calling out of the store. Error Prone's {@code @GuardedBy} cannot name a lock chosen per key, so the rule is stated
 * here and on the helpers ("under {@code stripe(id)}").
 */
public final class BackupStore {
  /** The time of day: session times (last access) that other nodes stamped, for expiry. */
  private final InstantSource clock;
  /** Local lifetimes (tombstones): the engine's ticker, so that a step of the wall clock neither ends nor extends them. */
  private final InstantSource lifetimes;
  private final Duration tombstoneTtl;
  private final long maxBytes;
  /** How many monitors guard the sessions (a power of two): enough that two selector threads rarely meet. */
  static final int STRIPES = 64;
  private final Object[] stripes = new Object[STRIPES];
  /** Each entry under its id's stripe (see the implementation notes). */
  private final Map<String, HeldBackup> entries = new ConcurrentHashMap<>();
  /** Each tombstone under its id's stripe. */
  private final Map<String, Tombstone> tombstones = new ConcurrentHashMap<>();
  private final AtomicLong bytesHeld = new AtomicLong();
  private final LongAdder appliedFull = new LongAdder();
  private final LongAdder appliedDelta = new LongAdder();
  private final LongAdder touchesApplied = new LongAdder();
  private final LongAdder touchesUnknown = new LongAdder();
  private final LongAdder gaps = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder refusedInvalidated = new LongAdder();
  private final LongAdder refusedFull = new LongAdder();

  /** A store without a bound on the bytes it holds. */
  public BackupStore(InstantSource clock, Duration tombstoneTtl) {
    this(clock, tombstoneTtl, Long.MAX_VALUE);
  }

  /**
   * One clock for session times and tombstone lifetimes alike (tests that move one manual clock).
   *
   * @param maxBytes most bytes of copies held ({@code maxBackupBytes}); see the class comment
   */
  public BackupStore(InstantSource clock, Duration tombstoneTtl, long maxBytes) {
    this(clock, clock, tombstoneTtl, maxBytes);
  }

  /**
   * @param clock the time of day, which session times are on (orphan expiry)
   * @param lifetimes where tombstones' ages are measured: the engine's ticker ({@code Ticker.asLocalClock})
   * @param maxBytes most bytes of copies held ({@code maxBackupBytes}); see the class comment
   */
  public BackupStore(InstantSource clock, InstantSource lifetimes, Duration tombstoneTtl, long maxBytes) {
    this.clock = clock;
    this.lifetimes = lifetimes;
    this.tombstoneTtl = tombstoneTtl;
    this.maxBytes = maxBytes;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
  }

  /** The monitor that guards everything about {@code id}. */
  private Object stripe(String id) {
    return stripes[stripeIndex(id)];
  }

  static int stripeIndex(String id) {
    int h = id.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /**
   * A backup: whose it is and its bytes at one version.
   *
   * @param access what this node can vouch for of the copy's last access, for a session adopted from it
   * @param sinceOwnerConfirmedMillis how long ago (on the lifetimes clock) the owner last had this copy confirmed here
   *     ({@link #confirmToOwner}); {@link Long#MAX_VALUE} if never
   */
  public record BackupEntry(NodeId owner, SessionSnapshot snapshot, AccessVouch access, long sinceOwnerConfirmedMillis) {
    /**
     * Whether the owner had this copy confirmed here within {@code lease}: it may be serving the session on the
     * strength of that answer (docs/protocol.md 11.3.13), and the copy is not taken from it until the lease ran out.
     */
    public boolean confirmedToOwnerWithin(java.time.Duration lease) {
      return confirmedWithin(sinceOwnerConfirmedMillis, lease);
    }

    /**
     * The snapshot with its last-access time as this node can vouch for it on its own clock ({@link AccessVouch}):
     * what an heir adopts, so that neither its expiry nor the container's counts from another node's clock.
     */
    public SessionSnapshot vouchedSnapshot(long touchLagMillis) {
      long stamped = snapshot.metadata().lastAccessedTime();
      long vouched = access.lastAccess(stamped, touchLagMillis);
      return vouched == stamped ? snapshot : snapshot.withLastAccessedTime(vouched);
    }
  }

  /**
   * Counters and gauges of the store.
   *
   * @param maxBytes the bound on {@code bytesHeld}
   * @param refusedFull copies and updates refused because they would have taken {@code bytesHeld} past {@code maxBytes}
   */
  public record BackupStats(
      int sessions,
      long bytesHeld,
      long maxBytes,
      long refusedFull,
      int tombstones,
      long appliedFull,
      long appliedDelta,
      long touchesApplied,
      long touchesUnknown,
      long gaps,
      long stale,
      long refusedInvalidated) {}

  /** @param ended the session ended (invalidated, expired, or an id given up at login), not only moved to another node */
  private record Tombstone(long epoch, long atMillis, boolean ended) {}

  /**
   * The refusal any update of {@code id} at {@code epoch} gets here whoever sends it, without storing anything: the
   * session ended or moved on here at that epoch or later, or a copy at a later epoch is held. Empty when an update
   * could be stored.
   */
  public Optional<Nack> refusal(String id, long epoch) {
    synchronized (stripe(id)) {
      Optional<Nack> refused = refuseTombstoned(id, epoch);
      if (refused.isPresent()) {
        return refused;
      }
      HeldBackup h = entries.get(id);
      return h != null && h.epoch() > epoch ? Optional.of(stale(h, id)) : Optional.empty();
    }
  }

  /** A copy that came without a request's access behind it (state transfer, a hand-over): see {@link AccessVouch}. */
  public Message applyFull(NodeId owner, SessionSnapshot s) {
    return applyFull(owner, s, false);
  }

  /**
   * A copy its owner sent as it flushed a request: the request accessed the session a moment before, so the copy's
   * arrival counts as an access's even when it is the first this node holds ({@link AccessVouch}; 11.3.50).
   */
  public Message applyFullAfterAnAccess(NodeId owner, SessionSnapshot s) {
    return applyFull(owner, s, true);
  }

  private Message applyFull(NodeId owner, SessionSnapshot s, boolean afterAnAccess) {
    synchronized (stripe(s.id())) {
      Optional<Nack> refused = refuseTombstoned(s.id(), s.epoch());
      if (refused.isPresent()) {
        return refused.get();
      }
      HeldBackup h = entries.get(s.id());
      if (h != null) {
        if (h.epoch() > s.epoch() || h.epoch() == s.epoch() && !h.owner().equals(owner)) {
          return stale(h, s.id());
        }
        if (h.epoch() == s.epoch() && h.version() >= s.version()) {
          return new Ack(h.epoch(), h.version());
        }
      }
      long growth = s.serializedSize() - (h == null ? 0 : h.size());
      Optional<Nack> full = reserveGrowth(s.id(), h, growth);
      if (full.isPresent()) {
        return full.get();
      }
      put(new HeldBackup(owner, s, h, lifetimes.millis(), afterAnAccess), Math.max(0, growth));
      appliedFull.increment();
      return new Ack(s.epoch(), s.version());
    }
  }

  public Message applyDelta(NodeId owner, Message.SessionDelta d) {
    synchronized (stripe(d.sessionId())) {
      Optional<Nack> refused = refuseTombstoned(d.sessionId(), d.epoch());
      if (refused.isPresent()) {
        return refused.get();
      }
      HeldBackup h = entries.get(d.sessionId());
      if (h == null) {
        gaps.increment();
        return new Nack(Nack.Reason.GAP, 0, 0, "no backup of session " + d.sessionId());
      }
      if (h.epoch() > d.epoch() || h.epoch() == d.epoch() && !h.owner().equals(owner)) {
        return stale(h, d.sessionId());
      }
      if (h.epoch() < d.epoch()) {
        gaps.increment();
        return new Nack(Nack.Reason.GAP, h.epoch(), h.version(), "backup is at epoch " + h.epoch() + ", delta is for epoch " + d.epoch());
      }
      if (d.version() <= h.version()) {
        return new Ack(h.epoch(), h.version());
      }
      if (d.baseVersion() != h.version()) {
        gaps.increment();
        return new Nack(Nack.Reason.GAP, h.epoch(), h.version(),
            "backup is at version " + h.version() + ", delta starts at " + d.baseVersion());
      }
      long growth = h.sizeAfter(d.metadata(), d.set(), d.removed()) - h.size();
      Optional<Nack> full = reserveGrowth(d.sessionId(), h, growth);
      if (full.isPresent()) {
        return full.get();
      }
      h.owner(owner); // as a full session would: the sender owns it now
      long before = h.size();
      h.applyDelta(d.version(), d.metadata(), d.set(), d.removed(), lifetimes.millis());
      bytesHeld.addAndGet(h.size() - before - Math.max(0, growth)); // zero: sizeAfter said what it would be
      appliedDelta.increment();
      return new Ack(h.epoch(), d.version());
    }
  }

  /** Raises last-access times; never lowers them and never changes versions. Unknown sessions are skipped. */
  public Message applyTouches(NodeId owner, Message.TouchBatch batch) {
    for (Message.Touch touch : batch.touches()) {
      synchronized (stripe(touch.sessionId())) {
        HeldBackup h = entries.get(touch.sessionId());
        if (h == null || h.epoch() != touch.epoch()) {
          touchesUnknown.increment();
          continue;
        }
        if (touch.lastAccessedTime() > h.metadata().lastAccessedTime()) {
          h.touch(touch.lastAccessedTime(), lifetimes.millis());
        } else {
          h.heard(lifetimes.millis()); // accessed all the same: a stamp behind the held one is the owner's clock stepping back
        }
        touchesApplied.increment();
      }
    }
    return new Ack(0, 0);
  }

  public Message invalidate(NodeId sender, Message.Invalidate invalidate) {
    String id = invalidate.sessionId();
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      Tombstone tombstone = tombstones.get(id);
      if (invalidate.reason() == Message.InvalidateReason.RELEASED && (held == null || held.epoch() <= invalidate.epoch())
          && tombstone != null && tombstone.ended() && tombstone.epoch() > invalidate.epoch() && live(tombstone)) {
        // The id ended here (invalidated, or given up at a login) at a later epoch than the releaser claims: this node
        // took the session back from it and went on. Acknowledged, the releaser kept its copy as the owner and served
        // the abandoned id again (soak seed 1225184, docs/protocol.md 11.3.52); refused, it is fenced (11.3.10).
        return new Nack(Nack.Reason.STALE_EPOCH, tombstone.epoch(), 0,
            "session " + id + " ended on this node at epoch " + tombstone.epoch());
      }
      if (held != null && held.epoch() > invalidate.epoch()) {
        if (invalidate.reason() == Message.InvalidateReason.RELEASED && held.owner().equals(sender)) {
          // The releaser's own copy, sent since it took the session over (this node became its buddy): nothing of the
          // former holder's copy is left here. Refused STALE_EPOCH, the releaser read "this buddy adopted the session
          // at my epoch" and let go of it, its one copy kept here for an owner that no longer claims it (soak seeds
          // 326270, 328592, docs/protocol.md 11.3.36). The copy stays; acknowledged as any release is (an implied ack).
          return new Ack(invalidate.epoch(), invalidate.version());
        }
        return stale(held, id);
      }
      if (held != null) {
        remove(id);
        if (invalidate.reason() == Message.InvalidateReason.RELEASED && !held.owner().equals(sender)) {
          // Released by a node other than the copy's owner: the session was claimed above this copy's epoch (a
          // migration's requester releasing its holder's buddy), and its owner at this epoch has let go of it. A late
          // update from that owner must not store the copy again: this node would adopt it as that owner's heir, a
          // second owner beside the requester (the simulation, seed 41252). Its own release leaves no tombstone, since
          // it may come back to this node as its buddy at the same epoch.
          tombstone(id, held.epoch(), false);
        }
      }
      if (invalidate.reason() != Message.InvalidateReason.RELEASED) {
        tombstone(id, invalidate.epoch(), true);
      }
      return new Ack(invalidate.epoch(), invalidate.version());
    }
  }

  /**
   * Re-keys a backup after the owner changed the session id. The id change is one version step, so a backup that
   * missed an update answers with a gap and the owner re-sends the session under its new id.
   */
  public Message changeId(NodeId owner, Message.IdChange change) {
    if (change.oldId().equals(change.newId())) {
      return Nack.refused(Nack.Refusal.MALFORMED, "id change from " + change.oldId() + " to itself");
    }
    // Both ids' stripes, the lower index first (every holder of two stripes takes them in that order).
    int a = stripeIndex(change.oldId());
    int b = stripeIndex(change.newId());
    synchronized (stripes[Math.min(a, b)]) {
      synchronized (stripes[Math.max(a, b)]) {
        return changeIdLocked(owner, change);
      }
    }
  }

  /** Under the stripes of both ids. */
  private Message changeIdLocked(NodeId owner, Message.IdChange change) {
    HeldBackup h = entries.get(change.oldId());
    if (h != null && h.epoch() > change.epoch()) {
      return stale(h, change.oldId());
    }
    Optional<Nack> newIdRefused = refuseTombstoned(change.newId(), change.epoch());
    if (newIdRefused.isPresent()) {
      // The new id ended (or moved on) here at this epoch or later, and this id change comes late: re-keying the old
      // copy under it brought the logged-out session back as a backup, adopted and served the day its owner died (the
      // simulation in ASYNC mode, seed 34: the owner's queued id change reached this buddy after the session had
      // migrated here, and ended). The old id is given up all the same.
      if (h != null) {
        remove(change.oldId());
      }
      tombstone(change.oldId(), change.epoch(), true);
      return newIdRefused.get();
    }
    HeldBackup underNewId = entries.get(change.newId());
    if (underNewId != null && underNewId.epoch() > change.epoch()) {
      // The session's next owner sent its copy under the new id first, over its own connection, and this id change
      // arrived late: re-keying the old copy over it put back an older epoch, which the sender's release then
      // dropped, and the owner's buddy held no copy (the simulation, seed 4617). The old id is given up all the same.
      if (h != null) {
        remove(change.oldId());
      }
      tombstone(change.oldId(), change.epoch(), true);
      return stale(underNewId, change.newId());
    }
    if (h == null || h.epoch() < change.epoch() || h.version() != change.version() - 1) {
      // The owner gave the old id up whatever this copy lacks: the copy under it goes, and the id is remembered as
      // ended, or the owner's death would leave it here to be adopted as a live session (docs/protocol.md 11.2).
      // The gap makes the owner re-send the session in full under its new id.
      if (h != null) {
        remove(change.oldId());
      }
      tombstone(change.oldId(), change.epoch(), true);
      gaps.increment();
      return h == null ? new Nack(Nack.Reason.GAP, 0, 0, "no backup of session " + change.oldId())
          : new Nack(Nack.Reason.GAP, h.epoch(), h.version(),
              "backup is at " + h.epoch() + "/" + h.version() + ", id change is " + change.epoch() + "/" + change.version());
    }
    remove(change.oldId());
    tombstone(change.oldId(), change.epoch(), true);
    h.owner(owner);
    h.changeId(change.newId(), change.version());
    put(h, 0);
    return new Ack(h.epoch(), change.version());
  }

  /**
   * Refuses, from now on, any update of {@code id} at {@code epoch} or older: the session moved to a new owner at a
   * higher epoch, and a former owner that comes back must learn so ({@code INVALIDATED}) instead of being stored.
   */
  public void refuseUpTo(String id, long epoch) {
    synchronized (stripe(id)) {
      tombstone(id, epoch, false);
    }
  }

  /**
   * This node owns {@code id} now, claimed from a copy at {@code epoch}: as {@link #refuseUpTo}, and the copy this node
   * held itself at that epoch or older (it was the former owner's buddy) goes. Kept next to the owned session, it
   * outlived it: handed to a member that asked after the session moved on, or handed off and adopted after the session
   * ended (docs/protocol.md 11.2).
   */
  public void claimedHere(String id, long epoch) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held != null && held.epoch() <= epoch) {
        remove(id);
      }
      tombstone(id, epoch, false);
    }
  }

  /**
   * Takes back a {@link #refuseUpTo} of an epoch below {@code epoch}: the adoption at {@code epoch} that set it was a
   * mistake (made by a node cut off from an owner that went on writing), and that owner's updates must be stored here
   * again. A session that ended stays refused, and so does a refusal set since at {@code epoch} or above.
   */
  public void stopRefusingBelow(String id, long epoch) {
    synchronized (stripe(id)) {
      Tombstone tombstone = tombstones.get(id);
      if (tombstone != null && !tombstone.ended() && tombstone.epoch() < epoch) {
        tombstones.remove(id);
      }
    }
  }

  /**
   * The session ended on this node, its owner: like {@link #refuseUpTo}, and remembered as ended for the tombstone's
   * lifetime, so that this node never takes it back in from a copy some other member still holds.
   */
  public void ended(String id, long epoch) {
    synchronized (stripe(id)) {
      tombstone(id, epoch, true);
    }
  }

  /**
   * The epoch at which {@code id} ended (was invalidated, expired, or given up at login), if that was within the
   * tombstone's lifetime: no copy at that epoch or older may be taken in again.
   */
  public OptionalLong endedAt(String id) {
    synchronized (stripe(id)) {
      Tombstone tombstone = tombstones.get(id);
      boolean ended = tombstone != null && tombstone.ended() && live(tombstone);
      return ended ? OptionalLong.of(tombstone.epoch()) : OptionalLong.empty();
    }
  }

  /**
   * Its owner says {@code id} ended at {@code epoch}: a copy held here at that epoch or older is dropped, and the
   * session is remembered as ended. A copy at a later epoch (the session moved on after that end was decided by an
   * owner that had been fenced) is kept.
   */
  public void endedElsewhere(String id, long epoch) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held == null || held.epoch() <= epoch) {
        remove(id);
        tombstone(id, epoch, true);
      }
    }
  }

  /**
   * Under {@code stripe(id)}. A later tombstone never lowers the epoch refused, nor forgets that the session ended
   * while the first lives.
   */
  private void tombstone(String id, long epoch, boolean ended) {
    long now = lifetimes.millis();
    Tombstone before = tombstones.get(id);
    boolean live = before != null && now - before.atMillis() <= tombstoneTtl.toMillis();
    tombstones.put(id, new Tombstone(live ? Math.max(epoch, before.epoch()) : epoch, now, ended || live && before.ended()));
  }

  /**
   * What a copy's owner was told when it asked where its session is: the copy, and whether the answer confirms it
   * (see {@link #confirmToOwner}).
   */
  public record Confirmation(BackupEntry entry, boolean confirmed) {}

  /**
   * The backup of {@code id} as it is now, answering its owner {@code asker}, which asks where its session is (after a
   * pause: {@code Quarantine.confirm}): the answer "held here, at your epoch" lets the owner serve the session on for a
   * lease, so the time it was given is recorded ({@link BackupEntry#confirmedToOwnerWithin}). Not once a claim on the
   * copy began here ({@link #refuseUpToUnlessConfirmed} refused its epoch): then it is not confirmed. Anyone else's
   * question is answered as {@link #entry} does, unconfirmed.
   */
  public Optional<Confirmation> confirmToOwner(String id, NodeId asker) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held == null) {
        return Optional.empty();
      }
      Tombstone refused = tombstones.get(id);
      boolean claiming = refused != null && refused.epoch() >= held.epoch() && live(refused);
      boolean confirmed = held.owner().equals(asker) && !claiming;
      if (confirmed) {
        held.ownerConfirmed(lifetimes.millis());
      }
      return Optional.of(new Confirmation(handOut(held), confirmed));
    }
  }

  /**
   * {@link #refuseUpTo}, the first step of a claim on the copy held here at {@code epoch}, unless that copy was
   * confirmed to its owner within {@code lease} (then nothing is refused: false). One step under the id's stripe with
   * {@link #confirmToOwner}, so that an owner is never told "held here" about a copy being claimed, nor a copy claimed
   * that its owner was just told about.
   */
  public boolean refuseUpToUnlessConfirmed(String id, long epoch, java.time.Duration lease) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held != null && held.epoch() == epoch && confirmedWithin(sinceOwnerConfirmed(held), lease)) {
        return false;
      }
      tombstone(id, epoch, false);
      return true;
    }
  }

  /**
   * Within {@code lease} of a confirmation {@code sinceMillis} ago, with a margin for the millisecond rounding: the
   * owner measures its lease in nanoseconds from before it asked, and this side must not end sooner.
   */
  private static boolean confirmedWithin(long sinceMillis, java.time.Duration lease) {
    return sinceMillis <= lease.toMillis() + 1;
  }

  /** How long ago (lifetimes clock) {@code held}'s owner last had it confirmed here; {@link Long#MAX_VALUE} if never. */
  private long sinceOwnerConfirmed(HeldBackup held) {
    long at = held.ownerConfirmedAt();
    return at == HeldBackup.NEVER ? Long.MAX_VALUE : Math.max(0, lifetimes.millis() - at);
  }

  /** Whether {@code tombstone} is within its lifetime. */
  private boolean live(Tombstone tombstone) {
    return lifetimes.millis() - tombstone.atMillis() <= tombstoneTtl.toMillis();
  }

  /** The backup of {@code id} as it is now; the snapshot never changes afterwards. */
  public Optional<BackupEntry> entry(String id) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      return held == null ? Optional.empty() : Optional.of(handOut(held));
    }
  }

  /** Removes and returns a backup for promotion; no tombstone, the session lives on elsewhere. */
  public Optional<BackupEntry> take(String id) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held == null) {
        return Optional.empty();
      }
      remove(id);
      return Optional.of(handOut(held));
    }
  }

  /**
   * {@link #take} of the backup only if it is still {@code owner}'s at this epoch and version: a decision made on a
   * copy after asking other members must not take or drop one that an update replaced meanwhile.
   */
  public Optional<BackupEntry> takeIf(String id, NodeId owner, long epoch, long version) {
    return takeIf(id, owner, epoch, version, java.time.Duration.ZERO);
  }

  /** {@link #takeIf}, unless the copy was confirmed to its owner within {@code lease} (see {@link #confirmToOwner}). */
  public Optional<BackupEntry> takeIf(String id, NodeId owner, long epoch, long version, java.time.Duration lease) {
    synchronized (stripe(id)) {
      HeldBackup held = entries.get(id);
      if (held == null || !held.owner().equals(owner) || held.epoch() != epoch || held.version() != version) {
        return Optional.empty();
      }
      if (!lease.isZero() && confirmedWithin(sinceOwnerConfirmed(held), lease)) {
        return Optional.empty();
      }
      return take(id); // the stripe's monitor is reentrant
    }
  }

  /** The backups {@code owner} holds here, each as it was when the walk reached it. */
  public List<BackupEntry> heldFor(NodeId owner) {
    List<BackupEntry> held = new ArrayList<>();
    for (String id : entries.keySet()) {
      synchronized (stripe(id)) {
        HeldBackup h = entries.get(id);
        if (h != null && h.owner().equals(owner)) {
          held.add(handOut(h));
        }
      }
    }
    return List.copyOf(held);
  }

  public Set<NodeId> owners() {
    Set<NodeId> owners = new LinkedHashSet<>();
    for (String id : entries.keySet()) {
      synchronized (stripe(id)) {
        HeldBackup h = entries.get(id);
        if (h != null) {
          owners.add(h.owner());
        }
      }
    }
    return owners;
  }

  public boolean isTombstoned(String id) {
    return tombstones.containsKey(id);
  }

  public long bytesHeld() {
    return bytesHeld.get();
  }

  public long maxBytes() {
    return maxBytes;
  }

  public int size() {
    return entries.size();
  }

  /**
   * Drops backups whose owner is gone and whose idle time ran out, allowing {@code graceMillis} more; a backup
   * whose owner is alive is never expired here. Also forgets tombstones older than the TTL. Walks the store without
   * a lock, taking each id's stripe only to look at and perhaps drop that id (see the implementation notes).
   *
   * @return the ids dropped
   */
  public List<String> expireOrphans(Predicate<NodeId> ownerAlive, long graceMillis) {
    long now = clock.millis(); // the time of day: last-access times are stamped so
    long age = lifetimes.millis();
    List<String> expired = new ArrayList<>();
    for (String id : entries.keySet()) {
      synchronized (stripe(id)) {
        HeldBackup entry = entries.get(id);
        if (entry != null && !ownerAlive.test(entry.owner()) && entry.metadata().isExpiredAt(now, graceMillis)
            && entry.idleLocallyFor(age, graceMillis)) {
          remove(id);
          tombstone(id, entry.epoch(), true);
          expired.add(id);
        }
      }
    }
    for (Map.Entry<String, Tombstone> e : tombstones.entrySet()) {
      if (age - e.getValue().atMillis() > tombstoneTtl.toMillis()) {
        synchronized (stripe(e.getKey())) {
          tombstones.remove(e.getKey(), e.getValue()); // only if no newer tombstone replaced it meanwhile
        }
      }
    }
    return expired;
  }

  public BackupStats stats() {
    return new BackupStats(entries.size(), bytesHeld.get(), maxBytes, refusedFull.sum(), tombstones.size(),
        appliedFull.sum(), appliedDelta.sum(), touchesApplied.sum(), touchesUnknown.sum(), gaps.sum(), stale.sum(),
        refusedInvalidated.sum());
  }

  /** Under {@code stripe(id)}. */
  private Optional<Nack> refuseTombstoned(String id, long epoch) {
    Tombstone tombstone = tombstones.get(id);
    if (tombstone == null || tombstone.epoch() < epoch) {
      return Optional.empty();
    }
    if (lifetimes.millis() - tombstone.atMillis() > tombstoneTtl.toMillis()) {
      tombstones.remove(id);
      return Optional.empty();
    }
    refusedInvalidated.increment();
    return Optional.of(new Nack(Nack.Reason.INVALIDATED, tombstone.epoch(), 0, "session " + id + " was invalidated"));
  }

  /**
   * Under {@code stripe(id)}: reserves {@code growth} bytes of the bound, or refuses when adding them would take the
   * store past it; empty when the update may be applied (its caller then settles the reservation as it applies).
   * {@code held} is the copy of {@code id} held now, kept as it is either way. What does not grow reserves nothing.
   */
  private Optional<Nack> reserveGrowth(String id, HeldBackup held, long growth) {
    if (growth <= 0) {
      return Optional.empty();
    }
    while (true) {
      long now = bytesHeld.get();
      if (now + growth > maxBytes) {
        refusedFull.increment();
        return Optional.of(new Nack(Nack.Reason.BACKUP_STORE_FULL, held == null ? 0 : held.epoch(),
            held == null ? 0 : held.version(), "backup store holds " + now + " bytes of maxBackupBytes " + maxBytes
                + "; " + (held == null ? "a copy of session " + id : "this update of session " + id) + " would add "
                + growth));
      }
      if (bytesHeld.compareAndSet(now, now + growth)) {
        return Optional.empty();
      }
    }
  }

  /**
   * Under {@code stripe(held.id())}. The sender's copy is older than the one held here, or as old and from another
   * owner: two nodes claimed the session at one epoch. The held copy's owner keeps it and the sender is refused (and
   * so fenced), whatever versions the two are at: a same-epoch update from the other owner acknowledged as "already
   * held" (its version was not above) was a 200 for a change stored nowhere, and one stored over the held copy
   * dropped the changes the first owner had been told were safe (docs/protocol.md 11.2).
   */
  private Nack stale(HeldBackup held, String id) {
    stale.increment();
    return new Nack(Nack.Reason.STALE_EPOCH, held.epoch(), held.version(),
        "backup of session " + id + " is at epoch " + held.epoch() + " from " + held.owner().value());
  }

  /** Under the entry's stripe: the snapshot it makes is cached in it. */
  private BackupEntry handOut(HeldBackup held) {
    return new BackupEntry(held.owner(), held.snapshot(),
        AccessVouch.of(held.accessArrivedAt(), lifetimes.millis(), clock.millis()), sinceOwnerConfirmed(held));
  }

  /**
   * Under {@code stripe(entry.id())}: stores it under its id, counting what it adds to the bytes held less the
   * {@code reserved} growth already counted.
   */
  private void put(HeldBackup entry, long reserved) {
    HeldBackup previous = entries.put(entry.id(), entry);
    bytesHeld.addAndGet(entry.size() - (previous == null ? 0 : previous.size()) - reserved);
  }

  /** Under {@code stripe(id)}. */
  private void remove(String id) {
    HeldBackup previous = entries.remove(id);
    if (previous != null) {
      bytesHeld.addAndGet(-previous.size());
    }
  }
}
