package io.tandem.core.replicator;

import io.tandem.core.codec.CodecException;
import io.tandem.core.config.MutationPolicy;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.scope.FlushPlan;
import io.tandem.core.scope.ScopePolicy;
import io.tandem.core.session.AttributeFingerprints;
import io.tandem.core.session.Blob;
import io.tandem.core.session.PendingChanges;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.wire.Message.Touch;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The owner's replication state of one session: its epoch and version, what changed since the last flush, and
 * whether the current buddy holds a copy.
 *
 * <p>Implementation notes: every field is guarded by {@code this}. The engine holds the lock from preparing an
 * update until it has handed it to the transport or the async queue, which is what makes a session's updates
 * reach the buddy in version order even when parallel requests flush at once.
 */
final class OwnedSession {
  private String id;
  private final long epoch;
  private long version;
  private SessionContent content;
  private final PendingChanges pending = new PendingChanges();
  private final AttributeFingerprints fingerprints = new AttributeFingerprints();
  private SessionMetadata lastSentMetadata;
  private boolean needsFull = true;
  private long protectedVersion = -1;
  private boolean fenced;
  private boolean gone;

  OwnedSession(String id, long epoch, long version, SessionContent content) {
    this.id = id;
    this.epoch = epoch;
    this.version = version;
    this.content = content;
  }

  synchronized String id() {
    return id;
  }

  long epoch() {
    return epoch;
  }

  synchronized long version() {
    return version;
  }

  synchronized boolean isStored() {
    return content instanceof SessionContent.Stored;
  }

  synchronized boolean isActive() {
    return !fenced && !gone;
  }

  synchronized boolean needsFull() {
    return needsFull && !fenced && !gone;
  }

  synchronized boolean isProtected() {
    return protectedVersion >= 0;
  }

  synchronized SessionMetadata metadata() {
    return content.metadata();
  }

  synchronized void attributeChanged(String name) {
    pending.attributeChanged(name);
  }

  synchronized void metadataChanged() {
    pending.metadataChanged();
  }

  /** A request (or a container thread) is done with the session: decide what to send and build it. */
  synchronized Prepared prepare(FlushRules rules, Set<String> readNames, boolean accessed) {
    if (fenced || gone) {
      return Prepared.NOTHING;
    }
    if (accessed) {
      pending.accessed();
    }
    if (rules.mutationPolicy == MutationPolicy.READ_MARKS_DIRTY) {
      for (String name : readNames) {
        if (!content.isImmutable(name, rules.immutableTypes)) {
          pending.attributeChanged(name);
        }
      }
    }
    if (rules.verifyMutations && rules.scope != ReplicationScope.SESSION && !needsFull) {
      detectUnsetMutations(rules);
    }
    SessionMetadata metadata = content.metadata();
    boolean metadataChanged = pending.isMetadataChanged() || !sameIgnoringAccessTime(metadata, lastSentMetadata);
    FlushPlan plan =
        ScopePolicy.plan(rules.scope, pending.isAccessed(), pending.changedNames(), metadataChanged, needsFull);
    Set<String> names = Set.copyOf(pending.changedNames());
    pending.clear();
    return switch (plan.kind()) {
      case NOTHING -> Prepared.NOTHING;
      case TOUCH -> Prepared.touch(new Touch(id, epoch, metadata.lastAccessedTime()), metadata);
      case FULL -> Prepared.update(buildFull(rules, ++version, metadata));
      case DELTA -> Prepared.update(buildDelta(rules, names, metadata));
    };
  }

  /**
   * The whole session at its current version, for a gap, a new buddy or state transfer. No version is consumed:
   * the content already includes every flushed change (and perhaps unflushed ones, which is harmless).
   */
  synchronized Optional<SessionUpdate.Full> resync(FlushRules rules) {
    if (fenced || gone) {
      return Optional.empty();
    }
    return Optional.of(buildFull(rules, version, content.metadata()));
  }

  private SessionUpdate.Full buildFull(FlushRules rules, long atVersion, SessionMetadata metadata) {
    Map<String, Blob> attributes = new HashMap<>();
    fingerprints.clear();
    for (String name : content.attributeNames()) {
      encode(rules, name).ifPresent(blob -> {
        attributes.put(name, blob);
        fingerprints.record(name, blob);
      });
    }
    needsFull = false;
    lastSentMetadata = metadata;
    return new SessionUpdate.Full(new SessionSnapshot(id, epoch, atVersion, metadata, attributes));
  }

  private SessionUpdate.Delta buildDelta(FlushRules rules, Set<String> names, SessionMetadata metadata) {
    Map<String, Blob> set = new HashMap<>();
    Set<String> removed = new HashSet<>();
    for (String name : names) {
      Optional<Blob> blob = encode(rules, name);
      if (blob.isPresent()) {
        set.put(name, blob.get());
        fingerprints.record(name, blob.get());
      } else if (!content.attributeNames().contains(name)) {
        removed.add(name);
        fingerprints.forget(name);
      }
    }
    long base = version;
    version++;
    lastSentMetadata = metadata;
    return new SessionUpdate.Delta(id, epoch, base, version, metadata, set, removed);
  }

  private Optional<Blob> encode(FlushRules rules, String name) {
    try {
      return content.encode(name, rules.codec);
    } catch (CodecException e) {
      rules.reportNotReplicable(id, name, e);
      if (isRaceWithTheApplication(e)) {
        // Another thread changed the value while it was being serialized: try again at the next flush.
        pending.attributeChanged(name);
      }
      return Optional.empty();
    }
  }

  private static boolean isRaceWithTheApplication(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.util.ConcurrentModificationException) {
        return true;
      }
    }
    return false;
  }

  private void detectUnsetMutations(FlushRules rules) {
    for (String name : content.attributeNames()) {
      if (pending.changedNames().contains(name) || !fingerprints.hasRecord(name)) {
        continue;
      }
      Optional<Blob> blob = encode(rules, name);
      if (blob.isPresent() && fingerprints.differs(name, blob.get())) {
        rules.reportUnsetMutation(id, name);
        pending.attributeChanged(name);
      }
    }
  }

  private static boolean sameIgnoringAccessTime(SessionMetadata a, SessionMetadata b) {
    return b != null && a.withLastAccessedTime(0).equals(b.withLastAccessedTime(0));
  }

  /** The buddy acknowledged {@code ackedVersion}. Returns true when the session just became protected. */
  synchronized boolean markProtected(long ackedVersion) {
    if (fenced || gone) {
      return false;
    }
    boolean was = protectedVersion >= 0;
    protectedVersion = Math.max(protectedVersion, ackedVersion);
    return !was;
  }

  /**
   * The buddy's copy is missing or suspect: the next flush (or the maintenance tick) sends the whole session.
   * Returns true when the session just lost its protection.
   */
  synchronized boolean markUnprotected() {
    if (fenced || gone) {
      return false;
    }
    needsFull = true;
    boolean was = protectedVersion >= 0;
    protectedVersion = -1;
    return was;
  }

  /** Another node owns this session at a higher epoch. Returns false when it was already fenced or gone. */
  synchronized boolean fence() {
    if (fenced || gone) {
      return false;
    }
    fenced = true;
    return true;
  }

  /** Invalidated, expired or handed away: nothing more is sent. Returns the version the end is recorded at. */
  synchronized long end() {
    gone = true;
    return ++version;
  }

  /** The container changed the session id; returns the new version, at which the buddy re-keys its copy. */
  synchronized long changeId(String newId) {
    id = newId;
    return ++version;
  }

  /** The container materialized this (stored) session: from now on its state lives in the container. */
  synchronized void attach(io.tandem.core.session.SessionSource source) {
    content = new SessionContent.Live(source);
  }

  /** The session's bytes as a snapshot at its current version, for promotion or a migration. */
  synchronized SessionSnapshot snapshot(FlushRules rules) {
    if (content instanceof SessionContent.Stored stored) {
      return new SessionSnapshot(id, epoch, version, stored.snapshot().metadata(), stored.snapshot().attributes());
    }
    Map<String, Blob> attributes = new HashMap<>();
    for (String name : content.attributeNames()) {
      encode(rules, name).ifPresent(blob -> attributes.put(name, blob));
    }
    return new SessionSnapshot(id, epoch, version, content.metadata(), attributes);
  }

  /** Result of {@link #prepare}. */
  record Prepared(FlushPlan.Kind kind, Touch touch, SessionMetadata metadata, SessionUpdate update) {
    static final Prepared NOTHING = new Prepared(FlushPlan.Kind.NOTHING, null, null, null);

    static Prepared touch(Touch touch, SessionMetadata metadata) {
      return new Prepared(FlushPlan.Kind.TOUCH, touch, metadata, null);
    }

    static Prepared update(SessionUpdate update) {
      return new Prepared(
          update instanceof SessionUpdate.Full ? FlushPlan.Kind.FULL : FlushPlan.Kind.DELTA, null, null, update);
    }
  }
}
