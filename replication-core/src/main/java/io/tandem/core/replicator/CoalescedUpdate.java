package io.tandem.core.replicator;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A session's consecutive queued updates, merged in place: what the ASYNC queue holds for a session until its sender
 * takes it. A delta followed by a delta is one delta from the first base to the last version (per attribute, the last
 * set or removal wins); a full session followed by deltas is one full session at the last version; anything followed
 * by a full session is that full session.
 *
 * <p>Merging used to build a new update per request, copying the attribute maps each time, so a session that a busy
 * sender left queued for a while cost a copy of everything it had queued on every request. Here the first merge
 * copies the queued update's maps once, into maps this object owns, and every later one writes into them; {@link
 * #build()} makes the one immutable update that is sent. An update that nothing merged into is sent as it came.
 *
 * <p>Implementation notes: not thread-safe. It is reachable only through the {@link AsyncOutbox} entry that holds
 * it, and changed only under the outbox's lock, until the sender thread removes the entry (under that lock) and then
 * calls {@link #build()} on its own.
 */
final class CoalescedUpdate {
  /** The update as queued, while nothing merged into it; null once the maps below hold the merge. */
  private SessionUpdate single;

  private String sessionId;
  private long epoch;
  private long baseVersion; // deltas only
  private long version;
  private SessionMetadata metadata;
  /** Full: the session's attributes. Delta: the attributes set. */
  private Map<String, Blob> attributes;
  /** Delta: the attributes removed; null for a full session. */
  private Set<String> removed;

  CoalescedUpdate(SessionUpdate first) {
    this.single = first;
  }

  /**
   * Merges {@code next} into this; false when they cannot merge (another session, another epoch, or {@code next} does
   * not start at this update's version), in which case nothing changed.
   */
  boolean add(SessionUpdate next) {
    if (!next.sessionId().equals(sessionId()) || next.epoch() != epoch()) {
      return false;
    }
    if (next instanceof SessionUpdate.Full) {
      single = next;
      attributes = null;
      removed = null;
      return true;
    }
    SessionUpdate.Delta delta = (SessionUpdate.Delta) next;
    if (delta.baseVersion() != version()) {
      return false;
    }
    if (single != null) {
      open(single);
      single = null;
    }
    for (String name : delta.removed()) {
      attributes.remove(name);
      if (removed != null) {
        removed.add(name);
      }
    }
    for (Map.Entry<String, Blob> set : delta.set().entrySet()) {
      attributes.put(set.getKey(), set.getValue());
      if (removed != null) {
        removed.remove(set.getKey());
      }
    }
    if (delta.metadata() != null) {
      metadata = delta.metadata();
    }
    version = delta.version();
    return true;
  }

  /** Copies the first update into maps this object owns: the one copy a merge costs. */
  private void open(SessionUpdate first) {
    sessionId = first.sessionId();
    epoch = first.epoch();
    version = first.version();
    if (first instanceof SessionUpdate.Full full) {
      SessionSnapshot snapshot = full.snapshot();
      metadata = snapshot.metadata();
      attributes = new HashMap<>(snapshot.attributes());
      removed = null;
    } else {
      SessionUpdate.Delta delta = (SessionUpdate.Delta) first;
      baseVersion = delta.baseVersion();
      metadata = delta.metadata();
      attributes = new HashMap<>(delta.set());
      removed = new HashSet<>(delta.removed());
    }
  }

  String sessionId() {
    return single != null ? single.sessionId() : sessionId;
  }

  long epoch() {
    return single != null ? single.epoch() : epoch;
  }

  long version() {
    return single != null ? single.version() : version;
  }

  /** The merged update, immutable; this object must not be changed afterwards. */
  SessionUpdate build() {
    if (single != null) {
      return single;
    }
    if (removed == null) {
      return new SessionUpdate.Full(new SessionSnapshot(sessionId, epoch, version, metadata, attributes));
    }
    return new SessionUpdate.Delta(sessionId, epoch, baseVersion, version, metadata, attributes, removed);
  }
}
