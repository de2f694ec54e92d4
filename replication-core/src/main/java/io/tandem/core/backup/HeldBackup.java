package io.tandem.core.backup;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * One backup as the {@link BackupStore} keeps it: updated in place, so that a delta costs what it carries rather
 * than a copy of the whole session, and its serialized size kept up to date the same way.
 *
 * <p>The attributes are the immutable map of the snapshot the backup came from until the first delta; that delta
 * copies them once into a map of this backup's own, and later deltas change that map in place. Nobody outside sees
 * it: {@link #snapshot()} hands out an immutable copy, made when first asked for after a change and reused until
 * the next one, so a snapshot handed out never changes, whoever holds it (state transfer, promotion, migration).
 * The copy then replaces the backup's own map (one map per backup, never two), and the next delta copies again:
 * a backup that is read between updates pays one copy per read, one that is only updated pays none.
 *
 * <p>Implementation notes: not thread-safe; every instance is reached only through the store, under the store's
 * stripe for its session id (see {@link BackupStore}).
 */
final class HeldBackup {
  private NodeId owner;
  private String id;
  private final long epoch;
  private long version;
  private SessionMetadata metadata;
  private Map<String, Blob> attributes;
  /** Whether {@link #attributes} is this backup's own (mutable) map rather than a snapshot's. */
  private boolean ownMap;
  /** {@link SessionSnapshot#serializedSize()} of the current state. */
  private long size;
  /** The current state as handed out, or null when it changed since. */
  private SessionSnapshot snapshot;
  /**
   * When (on the store's lifetimes clock) the newest last-access time arrived, if it arrived later than an older one
   * held here (an access caused it), else {@link AccessVouch#NOT_SEEN}: see {@link AccessVouch}.
   */
  private long accessArrivedAt;
  /**
   * When (on the store's lifetimes clock) this copy's owner last had it confirmed here, asking where its session is
   * after a pause, or {@link #NEVER}: see {@link BackupStore#confirmToOwner}.
   */
  private long ownerConfirmedAt = NEVER;
  /**
   * When (on the store's lifetimes clock) the owner last sent anything of this copy: the copy, an update or a touch.
   * An access on the owner reaches the buddy within the touch lag, so a copy idle by its owner's stamps is idle by
   * this too, unless the two hosts' clocks disagree: see {@link #idleLocallyFor}.
   */
  private long heardAt;

  /** {@link #ownerConfirmedAt} of a copy whose owner never had it confirmed here. */
  static final long NEVER = Long.MIN_VALUE;

  /**
   * @param before the backup this one replaces, null if none
   * @param now the store's lifetimes clock
   * @param afterAnAccess the owner sent this copy as it flushed a request, which accessed the session a moment before:
   *     a first copy's arrival is an access's too (without it, an heir judged the copy by the stamp alone, on a clock
   *     that may be minutes off this one's: the simulation, seed 1110133)
   */
  HeldBackup(NodeId owner, SessionSnapshot s, HeldBackup before, long now, boolean afterAnAccess) {
    this.heardAt = now;
    this.accessArrivedAt = before == null ? (afterAnAccess ? now : AccessVouch.NOT_SEEN)
        : s.metadata().lastAccessedTime() > before.metadata.lastAccessedTime() ? now : before.accessArrivedAt;
    this.ownerConfirmedAt = before != null && before.owner.equals(owner) ? before.ownerConfirmedAt : NEVER;
    this.owner = owner;
    this.id = s.id();
    this.epoch = s.epoch();
    this.version = s.version();
    this.metadata = s.metadata();
    this.attributes = s.attributes();
    this.size = s.serializedSize();
    this.snapshot = s;
  }

  NodeId owner() {
    return owner;
  }

  /** The member whose updates this backup now follows. */
  void owner(NodeId owner) {
    this.owner = owner;
  }

  String id() {
    return id;
  }

  long epoch() {
    return epoch;
  }

  long version() {
    return version;
  }

  SessionMetadata metadata() {
    return metadata;
  }

  /** Equal to {@code snapshot().serializedSize()}, without making the snapshot. */
  long size() {
    return size;
  }

  /** What {@link #size()} would be after {@link #applyDelta} of these, without applying it. */
  long sizeAfter(SessionMetadata newMetadata, Map<String, Blob> set, Set<String> removed) {
    long after = size;
    for (String name : removed) {
      Blob previous = attributes.get(name);
      if (previous != null) {
        after -= SessionSnapshot.entrySize(name, previous);
      }
    }
    for (Map.Entry<String, Blob> e : set.entrySet()) {
      Blob previous = removed.contains(e.getKey()) ? null : attributes.get(e.getKey());
      if (previous != null) {
        after -= SessionSnapshot.entrySize(e.getKey(), previous);
      }
      after += SessionSnapshot.entrySize(e.getKey(), e.getValue());
    }
    if (newMetadata != null) {
      after += newMetadata.serializedSize() - metadata.serializedSize();
    }
    return after;
  }

  long accessArrivedAt() {
    return accessArrivedAt;
  }

  /**
   * Whether nothing of this copy arrived for its whole inactive interval plus {@code graceMillis}, on this host's
   * lifetimes clock ({@code now}): an owner's last-access stamps are on its own time of day, which may be minutes
   * off this host's (an NTP step), and judged by this host's clock alone, a copy its owner had touched a moment ago
   * looked expired here (the simulation, seed 225828; docs/protocol.md 11.3.33).
   */
  boolean idleLocallyFor(long now, long graceMillis) {
    int interval = metadata.maxInactiveIntervalSeconds();
    return interval > 0 && now - heardAt >= interval * 1000L + graceMillis;
  }

  long ownerConfirmedAt() {
    return ownerConfirmedAt;
  }

  void ownerConfirmed(long now) {
    ownerConfirmedAt = now;
  }

  /**
   * Removes {@code removed}, then sets {@code set}, and moves to {@code newVersion}.
   *
   * @param now the store's lifetimes clock
   */
  void applyDelta(long newVersion, SessionMetadata newMetadata, Map<String, Blob> set, Set<String> removed, long now) {
    heardAt = now;
    if (!ownMap) {
      attributes = new HashMap<>(attributes); // the one copy: the snapshot's map is immutable
      ownMap = true;
    }
    for (String name : removed) {
      Blob previous = attributes.remove(name);
      if (previous != null) {
        size -= SessionSnapshot.entrySize(name, previous);
      }
    }
    for (Map.Entry<String, Blob> e : set.entrySet()) {
      Blob previous = attributes.put(e.getKey(), e.getValue());
      if (previous != null) {
        size -= SessionSnapshot.entrySize(e.getKey(), previous);
      }
      size += SessionSnapshot.entrySize(e.getKey(), e.getValue());
    }
    if (newMetadata != null) {
      size += newMetadata.serializedSize() - metadata.serializedSize();
      if (newMetadata.lastAccessedTime() > metadata.lastAccessedTime()) {
        accessArrivedAt = now;
      }
      metadata = newMetadata;
    }
    version = newVersion;
    snapshot = null;
  }

  /** The owner sent a touch of this copy whose stamp is not newer than the held one ({@link #heardAt}). */
  void heard(long now) {
    heardAt = now;
  }

  /**
   * A later last-access time; the size does not depend on it.
   *
   * @param now the store's lifetimes clock
   */
  void touch(long lastAccessedTime, long now) {
    heardAt = now;
    metadata = metadata.withLastAccessedTime(lastAccessedTime);
    accessArrivedAt = now;
    if (snapshot != null) { // the handed-out map is immutable: the new snapshot shares it
      snapshot = new SessionSnapshot(id, epoch, version, metadata, snapshot.attributes());
    }
  }

  void changeId(String newId, long newVersion) {
    size += newId.length() - id.length();
    id = newId;
    version = newVersion;
    if (snapshot != null) {
      snapshot = new SessionSnapshot(id, epoch, version, metadata, snapshot.attributes());
    }
  }

  /** The current state; never changes afterwards. */
  SessionSnapshot snapshot() {
    if (snapshot == null) {
      snapshot = new SessionSnapshot(id, epoch, version, metadata, attributes); // copies our own map
      // Keep one map, not two: the next delta copies the snapshot's, as after a full session.
      attributes = snapshot.attributes();
      ownMap = false;
    }
    return snapshot;
  }
}
