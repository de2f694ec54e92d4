package io.tandem.core.backup;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Ack;
import io.tandem.core.wire.Message.Nack;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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
 * <p>Implementation notes: every method is {@code synchronized} on the store, and every field and every {@link
 * HeldBackup} is guarded by that lock. Updates arrive one at a time per owner (the transport contract) and are
 * cheap map operations on bytes already decoded, so one lock costs little and keeps {@code bytesHeld} exact.
 */
public final class BackupStore {
  /** The time of day: session times (last access) that other nodes stamped, for expiry. */
  private final InstantSource clock;
  /** Local lifetimes (tombstones): the engine's ticker, so that a step of the wall clock neither ends nor extends them. */
  private final InstantSource lifetimes;
  private final Duration tombstoneTtl;
  private final long maxBytes;
  @GuardedBy("this")
  private final Map<String, HeldBackup> entries = new HashMap<>();
  @GuardedBy("this")
  private final Map<String, Tombstone> tombstones = new HashMap<>();
  @GuardedBy("this")
  private long bytesHeld;
  @GuardedBy("this")
  private long appliedFull;
  @GuardedBy("this")
  private long appliedDelta;
  @GuardedBy("this")
  private long touchesApplied;
  @GuardedBy("this")
  private long touchesUnknown;
  @GuardedBy("this")
  private long gaps;
  @GuardedBy("this")
  private long stale;
  @GuardedBy("this")
  private long refusedInvalidated;
  @GuardedBy("this")
  private long refusedFull;

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
  }

  /** A backup: whose it is and its bytes at one version. */
  public record BackupEntry(NodeId owner, SessionSnapshot snapshot) {}

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
  public synchronized Optional<Nack> refusal(String id, long epoch) {
    Optional<Nack> refused = refuseTombstoned(id, epoch);
    if (refused.isPresent()) {
      return refused;
    }
    HeldBackup h = entries.get(id);
    return h != null && h.epoch() > epoch ? Optional.of(stale(h, id)) : Optional.empty();
  }

  public synchronized Message applyFull(NodeId owner, SessionSnapshot s) {
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
    Optional<Nack> full = refuseGrowth(s.id(), h, s.serializedSize() - (h == null ? 0 : h.size()));
    if (full.isPresent()) {
      return full.get();
    }
    put(new HeldBackup(owner, s));
    appliedFull++;
    return new Ack(s.epoch(), s.version());
  }

  public synchronized Message applyDelta(NodeId owner, Message.SessionDelta d) {
    Optional<Nack> refused = refuseTombstoned(d.sessionId(), d.epoch());
    if (refused.isPresent()) {
      return refused.get();
    }
    HeldBackup h = entries.get(d.sessionId());
    if (h == null) {
      gaps++;
      return new Nack(Nack.Reason.GAP, 0, 0, "no backup of session " + d.sessionId());
    }
    if (h.epoch() > d.epoch() || h.epoch() == d.epoch() && !h.owner().equals(owner)) {
      return stale(h, d.sessionId());
    }
    if (h.epoch() < d.epoch()) {
      gaps++;
      return new Nack(Nack.Reason.GAP, h.epoch(), h.version(), "backup is at epoch " + h.epoch() + ", delta is for epoch " + d.epoch());
    }
    if (d.version() <= h.version()) {
      return new Ack(h.epoch(), h.version());
    }
    if (d.baseVersion() != h.version()) {
      gaps++;
      return new Nack(Nack.Reason.GAP, h.epoch(), h.version(),
          "backup is at version " + h.version() + ", delta starts at " + d.baseVersion());
    }
    Optional<Nack> full = refuseGrowth(d.sessionId(), h, h.sizeAfter(d.metadata(), d.set(), d.removed()) - h.size());
    if (full.isPresent()) {
      return full.get();
    }
    h.owner(owner); // as a full session would: the sender owns it now
    long before = h.size();
    h.applyDelta(d.version(), d.metadata(), d.set(), d.removed());
    bytesHeld += h.size() - before;
    appliedDelta++;
    return new Ack(h.epoch(), d.version());
  }

  /** Raises last-access times; never lowers them and never changes versions. Unknown sessions are skipped. */
  public synchronized Message applyTouches(NodeId owner, Message.TouchBatch batch) {
    for (Message.Touch touch : batch.touches()) {
      HeldBackup h = entries.get(touch.sessionId());
      if (h == null || h.epoch() != touch.epoch()) {
        touchesUnknown++;
        continue;
      }
      if (touch.lastAccessedTime() > h.metadata().lastAccessedTime()) {
        h.touch(touch.lastAccessedTime());
      }
      touchesApplied++;
    }
    return new Ack(0, 0);
  }

  public synchronized Message invalidate(NodeId owner, Message.Invalidate invalidate) {
    String id = invalidate.sessionId();
    HeldBackup held = entries.get(id);
    if (held != null && held.epoch() > invalidate.epoch()) {
      return stale(held, id);
    }
    if (held != null) {
      remove(id);
    }
    if (invalidate.reason() != Message.InvalidateReason.RELEASED) {
      tombstone(id, invalidate.epoch(), true);
    }
    return new Ack(invalidate.epoch(), invalidate.version());
  }

  /**
   * Re-keys a backup after the owner changed the session id. The id change is one version step, so a backup that
   * missed an update answers with a gap and the owner re-sends the session under its new id.
   */
  public synchronized Message changeId(NodeId owner, Message.IdChange change) {
    if (change.oldId().equals(change.newId())) {
      return new Nack(Nack.Reason.REFUSED, 0, 0, "id change from " + change.oldId() + " to itself");
    }
    HeldBackup h = entries.get(change.oldId());
    if (h != null && h.epoch() > change.epoch()) {
      return stale(h, change.oldId());
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
      gaps++;
      return h == null ? new Nack(Nack.Reason.GAP, 0, 0, "no backup of session " + change.oldId())
          : new Nack(Nack.Reason.GAP, h.epoch(), h.version(),
              "backup is at " + h.epoch() + "/" + h.version() + ", id change is " + change.epoch() + "/" + change.version());
    }
    remove(change.oldId());
    tombstone(change.oldId(), change.epoch(), true);
    h.owner(owner);
    h.changeId(change.newId(), change.version());
    put(h);
    return new Ack(h.epoch(), change.version());
  }

  /**
   * Refuses, from now on, any update of {@code id} at {@code epoch} or older: the session moved to a new owner at a
   * higher epoch, and a former owner that comes back must learn so ({@code INVALIDATED}) instead of being stored.
   */
  public synchronized void refuseUpTo(String id, long epoch) {
    tombstone(id, epoch, false);
  }

  /**
   * This node owns {@code id} now, claimed from a copy at {@code epoch}: as {@link #refuseUpTo}, and the copy this node
   * held itself at that epoch or older (it was the former owner's buddy) goes. Kept next to the owned session, it
   * outlived it: handed to a member that asked after the session moved on, or handed off and adopted after the session
   * ended (docs/protocol.md 11.2).
   */
  public synchronized void claimedHere(String id, long epoch) {
    HeldBackup held = entries.get(id);
    if (held != null && held.epoch() <= epoch) {
      remove(id);
    }
    tombstone(id, epoch, false);
  }

  /**
   * Takes back a {@link #refuseUpTo} of an epoch below {@code epoch}: the adoption at {@code epoch} that set it was a
   * mistake (made by a node cut off from an owner that went on writing), and that owner's updates must be stored here
   * again. A session that ended stays refused, and so does a refusal set since at {@code epoch} or above.
   */
  public synchronized void stopRefusingBelow(String id, long epoch) {
    Tombstone tombstone = tombstones.get(id);
    if (tombstone != null && !tombstone.ended() && tombstone.epoch() < epoch) {
      tombstones.remove(id);
    }
  }

  /**
   * The session ended on this node, its owner: like {@link #refuseUpTo}, and remembered as ended for the tombstone's
   * lifetime, so that this node never takes it back in from a copy some other member still holds.
   */
  public synchronized void ended(String id, long epoch) {
    tombstone(id, epoch, true);
  }

  /**
   * The epoch at which {@code id} ended (was invalidated, expired, or given up at login), if that was within the
   * tombstone's lifetime: no copy at that epoch or older may be taken in again.
   */
  public synchronized OptionalLong endedAt(String id) {
    Tombstone tombstone = tombstones.get(id);
    boolean ended = tombstone != null && tombstone.ended() && lifetimes.millis() - tombstone.atMillis() <= tombstoneTtl.toMillis();
    return ended ? OptionalLong.of(tombstone.epoch()) : OptionalLong.empty();
  }

  /**
   * Its owner says {@code id} ended at {@code epoch}: a copy held here at that epoch or older is dropped, and the
   * session is remembered as ended. A copy at a later epoch (the session moved on after that end was decided by an
   * owner that had been fenced) is kept.
   */
  public synchronized void endedElsewhere(String id, long epoch) {
    HeldBackup held = entries.get(id);
    if (held == null || held.epoch() <= epoch) {
      remove(id);
      tombstone(id, epoch, true);
    }
  }

  /** A later tombstone never lowers the epoch refused, nor forgets that the session ended while the first lives. */
  @GuardedBy("this")
  private void tombstone(String id, long epoch, boolean ended) {
    long now = lifetimes.millis();
    Tombstone before = tombstones.get(id);
    boolean live = before != null && now - before.atMillis() <= tombstoneTtl.toMillis();
    tombstones.put(id, new Tombstone(live ? Math.max(epoch, before.epoch()) : epoch, now, ended || live && before.ended()));
  }

  /** The backup of {@code id} as it is now; the snapshot never changes afterwards. */
  public synchronized Optional<BackupEntry> entry(String id) {
    return Optional.ofNullable(entries.get(id)).map(BackupStore::handOut);
  }

  /** Removes and returns a backup for promotion; no tombstone, the session lives on elsewhere. */
  public synchronized Optional<BackupEntry> take(String id) {
    HeldBackup held = entries.get(id);
    if (held != null) {
      remove(id);
    }
    return Optional.ofNullable(held).map(BackupStore::handOut);
  }

  /**
   * {@link #take} of the backup only if it is still {@code owner}'s at this epoch and version: a decision made on a
   * copy after asking other members must not take or drop one that an update replaced meanwhile.
   */
  public synchronized Optional<BackupEntry> takeIf(String id, NodeId owner, long epoch, long version) {
    HeldBackup held = entries.get(id);
    if (held == null || !held.owner().equals(owner) || held.epoch() != epoch || held.version() != version) {
      return Optional.empty();
    }
    return take(id);
  }

  public synchronized List<BackupEntry> heldFor(NodeId owner) {
    return entries.values().stream().filter(e -> e.owner().equals(owner)).map(BackupStore::handOut).toList();
  }

  public synchronized Set<NodeId> owners() {
    Set<NodeId> owners = new LinkedHashSet<>();
    entries.values().forEach(e -> owners.add(e.owner()));
    return owners;
  }

  public synchronized boolean isTombstoned(String id) {
    return tombstones.containsKey(id);
  }

  public synchronized long bytesHeld() {
    return bytesHeld;
  }

  public long maxBytes() {
    return maxBytes;
  }

  public synchronized int size() {
    return entries.size();
  }

  /**
   * Drops backups whose owner is gone and whose idle time ran out, allowing {@code graceMillis} more; a backup
   * whose owner is alive is never expired here. Also forgets tombstones older than the TTL.
   *
   * @return the ids dropped
   */
  public synchronized List<String> expireOrphans(Predicate<NodeId> ownerAlive, long graceMillis) {
    long now = clock.millis(); // the time of day: last-access times are stamped so
    long age = lifetimes.millis();
    List<String> expired = new ArrayList<>();
    for (HeldBackup entry : List.copyOf(entries.values())) {
      if (!ownerAlive.test(entry.owner()) && entry.metadata().isExpiredAt(now, graceMillis)) {
        String id = entry.id();
        remove(id);
        tombstone(id, entry.epoch(), true);
        expired.add(id);
      }
    }
    for (Iterator<Tombstone> it = tombstones.values().iterator(); it.hasNext(); ) {
      if (age - it.next().atMillis() > tombstoneTtl.toMillis()) {
        it.remove();
      }
    }
    return expired;
  }

  public synchronized BackupStats stats() {
    return new BackupStats(entries.size(), bytesHeld, maxBytes, refusedFull, tombstones.size(), appliedFull,
        appliedDelta, touchesApplied, touchesUnknown, gaps, stale, refusedInvalidated);
  }

  @GuardedBy("this")
  private Optional<Nack> refuseTombstoned(String id, long epoch) {
    Tombstone tombstone = tombstones.get(id);
    if (tombstone == null || tombstone.epoch() < epoch) {
      return Optional.empty();
    }
    if (lifetimes.millis() - tombstone.atMillis() > tombstoneTtl.toMillis()) {
      tombstones.remove(id);
      return Optional.empty();
    }
    refusedInvalidated++;
    return Optional.of(new Nack(Nack.Reason.INVALIDATED, tombstone.epoch(), 0, "session " + id + " was invalidated"));
  }

  /**
   * A refusal when adding {@code growth} bytes would take the store past its bound; empty when the update may be
   * applied. {@code held} is the copy of {@code id} held now, kept as it is either way.
   */
  @GuardedBy("this")
  private Optional<Nack> refuseGrowth(String id, HeldBackup held, long growth) {
    if (growth <= 0 || bytesHeld + growth <= maxBytes) {
      return Optional.empty();
    }
    refusedFull++;
    return Optional.of(new Nack(Nack.Reason.BACKUP_STORE_FULL, held == null ? 0 : held.epoch(),
        held == null ? 0 : held.version(), "backup store holds " + bytesHeld + " bytes of maxBackupBytes " + maxBytes
            + "; " + (held == null ? "a copy of session " + id : "this update of session " + id) + " would add " + growth));
  }

  @GuardedBy("this")
  /**
   * The sender's copy is older than the one held here, or as old and from another owner: two nodes claimed the session
   * at one epoch. The held copy's owner keeps it and the sender is refused (and so fenced), whatever versions the two
   * are at: a same-epoch update from the other owner acknowledged as "already held" (its version was not above) was a
   * 200 for a change stored nowhere, and one stored over the held copy dropped the changes the first owner had been
   * told were safe (docs/protocol.md 11.2).
   */
  private Nack stale(HeldBackup held, String id) {
    stale++;
    return new Nack(Nack.Reason.STALE_EPOCH, held.epoch(), held.version(),
        "backup of session " + id + " is at epoch " + held.epoch() + " from " + held.owner().value());
  }

  private static BackupEntry handOut(HeldBackup held) {
    return new BackupEntry(held.owner(), held.snapshot());
  }

  @GuardedBy("this")
  private void put(HeldBackup entry) {
    HeldBackup previous = entries.put(entry.id(), entry);
    if (previous != null) {
      bytesHeld -= previous.size();
    }
    bytesHeld += entry.size();
  }

  @GuardedBy("this")
  private void remove(String id) {
    HeldBackup previous = entries.remove(id);
    if (previous != null) {
      bytesHeld -= previous.size();
    }
  }
}
