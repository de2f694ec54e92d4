package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
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
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Touch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The owner's replication state of one session: its epoch and version, what changed since the last flush, whether
 * the current buddy holds a copy, and the newest update still waiting for its acknowledgement.
 *
 * <p>The container keeps this object with its own session (it is the engine's handle on it), so that a request's
 * flush finds it without a lookup, and still finds it, fenced, after another node took the session over while the
 * request ran. Outside this package it is opaque.
 *
 * <p>Implementation notes: every field is guarded by {@code this} (the session lock), except that {@code fenced},
 * {@code gone}, {@code protectedVersion} and {@code formerIdsEnded} are also volatile: they are written under the lock (where they are
 * checked and changed together with the rest) and read without it by {@link #isActive()}, {@link
 * #isProtectedWithoutLock()} and friends, so a request asks whether its session is still owned here, and an ack of a
 * protected session is counted, without taking the lock. The engine holds the lock from reading the buddy and
 * preparing an update until it has handed the update to the transport or the async queue, which is what makes a
 * session's updates reach the buddy in version order even when parallel requests flush at once. Nobody waits for a
 * reply under it.
 */
public final class OwnedSession {
  /**
   * More logins than this while the new buddy has not acknowledged the session are not expected; the oldest ids are
   * forgotten first. A release pending at a former buddy keeps the ids its copy may be under itself ({@link
   * Reprotection}), so this bound does not apply to it.
   */
  private static final int MAX_FORMER_IDS = 4;
  private static final CompletableFuture<Boolean> ENDED = CompletableFuture.completedFuture(true);
  private final int hash;
  @GuardedBy("this")
  private String id;
  /** See {@link #formerIds()}. */
  @GuardedBy("this")
  private final List<String> formerIds = new ArrayList<>(0);
  /**
   * Whether the buddy that last protected the session anew ended every former id (true), or refused or did not
   * answer (false); pending while its answers are awaited. See {@link #formerIdsEnded()}.
   */
  @GuardedBy("this") // for writes; volatile for formerIdsEnded(), read on every flush
  private volatile CompletableFuture<Boolean> formerIdsEnded = ENDED;
  private final long epoch;
  @GuardedBy("this")
  private long version;
  @GuardedBy("this")
  private SessionContent content;
  @GuardedBy("this")
  private final PendingChanges pending = new PendingChanges();
  @GuardedBy("this")
  private final AttributeFingerprints fingerprints = new AttributeFingerprints();
  @GuardedBy("this")
  private SessionMetadata lastSentMetadata;
  @GuardedBy("this")
  private boolean needsFull = true;
  @GuardedBy("this") // for writes; volatile for isProtectedWithoutLock()
  private volatile long protectedVersion = -1;
  private volatile boolean fenced;
  private volatile boolean gone;
  /** The newest update sent in SYNC mode; it carries every change prepared so far. Null before the first. */
  @GuardedBy("this")
  private InFlight lastSent;
  /**
   * Full-session scopes only: each attribute's bytes as last encoded. A full update re-encodes only what may have
   * changed since (set, or read and not provably immutable) and reuses these for the rest; the price is one
   * serialized copy of each session on its owner.
   */
  @GuardedBy("this")
  private final Map<String, Blob> lastBytes = new HashMap<>();
  /** {@link #prepare}'s list of refused attributes, reused: {@link Prepared#update} copies it only when not empty. */
  @GuardedBy("this")
  private final List<String> refusedScratch = new ArrayList<>();
  /** The size of the buddy's copy, kept within {@code maxSessionSize}. */
  @GuardedBy("this")
  private final CopyBudget budget = new CopyBudget();

  OwnedSession(String id, long epoch, long version, SessionContent content) {
    this.hash = 31 * id.hashCode() + Long.hashCode(epoch);
    this.id = id;
    this.epoch = epoch;
    this.version = version;
    this.content = content;
  }

  /**
   * Identity, as before; but the hash is derived from the id and epoch it was created with (final, so a login's new
   * id does not move it in a map), not the JVM's identity hash: the maps and sets keyed by sessions (the release
   * ledger, the ASYNC outbox) then iterate in the same order in every run, which the deterministic simulation needs to
   * replay a seed in another JVM.
   */
  @Override
  public boolean equals(Object other) {
    return this == other;
  }

  @Override
  public int hashCode() {
    return hash;
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

  /** Still owned here: neither fenced nor ended. Reads no lock (see the implementation notes). */
  boolean isActive() {
    return !fenced && !gone;
  }

  /** Another node took the session over: whatever a request changed here is not kept. */
  boolean isFenced() {
    return fenced;
  }

  /** Invalidated, expired or handed away. */
  boolean isGone() {
    return gone;
  }

  synchronized boolean needsFull() {
    return needsFull && !fenced && !gone;
  }

  synchronized boolean isProtected() {
    return protectedVersion >= 0;
  }

  /**
   * {@link #isProtected()} read without the lock, for the ASYNC reply thread: an acknowledgement of a session that
   * is protected changes nothing ASYNC relies on (only SYNC reads the version), so that thread need not wait for a
   * lock a request holds. The answer may be stale at once; a session unprotected meanwhile stays unprotected.
   */
  @SuppressWarnings("GuardedBy") // the racy read is the point: see above
  boolean isProtectedWithoutLock() {
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
    // Only a value the application set is its request's failure to replicate; one that counts as changed because it
    // was read (the mutation policy) and cannot be encoded is dropped from the copy all the same, without a 500.
    Set<String> setByApplication = frozenCopy(pending.changedNames());
    List<String> mutableReads = null; // read and mutable: whatever the policy, a full update must not reuse old bytes
    for (String name : readNames) {
      if (!content.isImmutable(name, rules.immutableTypes)) {
        if (mutableReads == null) {
          mutableReads = new ArrayList<>();
        }
        mutableReads.add(name);
        if (rules.mutationPolicy == MutationPolicy.READ_MARKS_DIRTY) {
          pending.attributeChanged(name);
        }
      }
    }
    if (rules.verifyMutations && rules.scope != ReplicationScope.SESSION && !needsFull) {
      detectUnsetMutations(rules);
    }
    SessionMetadata metadata = content.metadata();
    boolean metadataChanged = pending.isMetadataChanged() || !sameExceptAccessTime(metadata, lastSentMetadata);
    // Names are only ever added since the copy above: as many means the same ones (the usual case), no second copy.
    Set<String> names = pending.changedNames().size() == setByApplication.size() ? setByApplication
        : frozenCopy(pending.changedNames());
    FlushPlan plan = ScopePolicy.plan(rules.scope, pending.isAccessed(), names, metadataChanged, needsFull);
    pending.clear();
    List<String> refused = refusedScratch;
    refused.clear();
    return switch (plan.kind()) {
      case NOTHING -> Prepared.NOTHING;
      case TOUCH -> Prepared.touch(new Touch(id, epoch, metadata.lastAccessedTime()), metadata);
      case FULL -> Prepared.update(buildFull(rules, ++version, metadata, setByApplication,
          mayHaveChanged(setByApplication, mutableReads), refused), refused);
      case DELTA -> Prepared.update(buildDelta(rules, names, metadata, setByApplication, refused), refused);
    };
  }

  /** An immutable copy; none, one or two names (what a request usually changes) take no temporary set to copy. */
  private static Set<String> frozenCopy(Set<String> names) {
    switch (names.size()) {
      case 0:
        return Set.of();
      case 1:
        return Set.of(names.iterator().next());
      default:
        return Set.copyOf(names);
    }
  }

  private static Set<String> mayHaveChanged(Set<String> setByApplication, List<String> mutableReads) {
    if (mutableReads == null) {
      return setByApplication;
    }
    Set<String> union = new HashSet<>(setByApplication);
    union.addAll(mutableReads);
    return union;
  }

  /**
   * The whole session at its current version, for a gap, a new buddy or state transfer. No version is consumed:
   * the content already includes every flushed change (and perhaps unflushed ones, which is harmless).
   */
  synchronized Optional<SessionUpdate.Full> resync(FlushRules rules) {
    if (fenced || gone) {
      return Optional.empty();
    }
    // Nothing changed since the last flush as far as this resend is concerned: the request that changed something
    // flushes it itself, with a newer version.
    return Optional.of(buildFull(rules, version, content.metadata(), Set.of(), Set.of(), new ArrayList<>()));
  }

  /**
   * @param changed the attributes this flush carries as changes: one of them that cannot be encoded is added to
   *     {@code refused}. Any attribute that cannot be encoded is left out, so the buddy's copy drops it rather than
   *     keep an older value.
   * @param mayHaveChanged attributes whose last bytes (full-session scopes) must not be reused
   */
  @GuardedBy("this")
  private SessionUpdate.Full buildFull(FlushRules rules, long atVersion, SessionMetadata metadata, Set<String> changed,
      Set<String> mayHaveChanged, List<String> refused) {
    Map<String, Blob> attributes = new HashMap<>();
    fingerprints.clear();
    boolean reuse = rules.scope != ReplicationScope.MODIFIED_ATTRIBUTE;
    Set<String> names = content.attributeNames();
    if (reuse) {
      lastBytes.keySet().retainAll(names);
    }
    budget.retainExisting(names);
    budget.changed(mayHaveChanged);
    budget.changed(changed);
    for (String name : names) {
      if (budget.isLeftOut(name)) {
        continue; // left out of an earlier copy for its size, and not changed since (see CopyBudget)
      }
      Blob kept = reuse && !mayHaveChanged.contains(name) ? lastBytes.get(name) : null;
      Optional<Blob> blob = kept != null ? Optional.of(kept) : encode(rules, name);
      if (reuse) {
        blob.ifPresentOrElse(b -> lastBytes.put(name, b), () -> lastBytes.remove(name));
      }
      if (blob.isPresent()) {
        attributes.put(name, blob.get());
        if (rules.verifyMutations) { // two hashes over every value sent: only verify mode reads them
          fingerprints.record(name, blob.get());
        }
      } else if (changed.contains(name)) {
        refused.add(name);
      }
    }
    budget.fitFull(id, metadata, attributes, mayHaveChanged, rules.maxSessionSize).ifPresent(tooLarge -> {
      for (String name : tooLarge.leftOut().keySet()) {
        lastBytes.remove(name);
        fingerprints.forget(name);
        if (changed.contains(name)) {
          refused.add(name);
        }
      }
      rules.reportSessionTooLarge(tooLarge);
    });
    needsFull = false;
    lastSentMetadata = metadata;
    return new SessionUpdate.Full(SessionSnapshot.owning(id, epoch, atVersion, metadata, attributes));
  }

  /**
   * An attribute that cannot be encoded is sent as removed (the buddy must never keep an older value of it), and
   * added to {@code refused} when the application set it.
   */
  @GuardedBy("this")
  private SessionUpdate.Delta buildDelta(FlushRules rules, Set<String> names, SessionMetadata metadata,
      Set<String> setByApplication, List<String> refused) {
    Map<String, Blob> set;
    Set<String> removed;
    String onlySet = null; // the one attribute set, when the delta sets one and removes none
    budget.changed(names);
    if (names.size() == 1) { // the usual request: one attribute, and no map or set to build it in
      String name = names.iterator().next();
      Optional<Blob> blob = encode(rules, name);
      if (blob.isPresent()) {
        set = Map.of(name, blob.get());
        removed = Set.of();
        onlySet = name;
        if (rules.verifyMutations) {
          fingerprints.record(name, blob.get());
        }
      } else {
        set = Map.of();
        removed = Set.of(name);
        refuseOrForget(name, setByApplication, refused);
      }
    } else {
      set = new HashMap<>();
      removed = new HashSet<>();
      for (String name : names) {
        Optional<Blob> blob = encode(rules, name);
        if (blob.isPresent()) {
          set.put(name, blob.get());
          if (rules.verifyMutations) {
            fingerprints.record(name, blob.get());
          }
        } else {
          removed.add(name);
          refuseOrForget(name, setByApplication, refused);
        }
      }
    }
    CopyBudget.Fitted fitted = onlySet != null
        ? budget.fitOne(id, metadata, onlySet, set.get(onlySet), rules.maxSessionSize)
        : budget.fitDelta(id, metadata, set, removed, rules.maxSessionSize);
    if (fitted != null) {
      set = fitted.set();
      removed = fitted.removed();
      for (String name : fitted.tooLarge().leftOut().keySet()) {
        fingerprints.forget(name);
        if (setByApplication.contains(name)) {
          refused.add(name);
        }
      }
      rules.reportSessionTooLarge(fitted.tooLarge());
    }
    long base = version;
    version++;
    lastSentMetadata = metadata;
    return new SessionUpdate.Delta(id, epoch, base, version, metadata, set, removed);
  }

  /** {@code name} could not be encoded: refused if the application set it (and the session has it), not verified. */
  @GuardedBy("this")
  private void refuseOrForget(String name, Set<String> setByApplication, List<String> refused) {
    if (setByApplication.contains(name) && content.attributeNames().contains(name)) {
      refused.add(name);
    }
    fingerprints.forget(name);
  }

  /** The attribute's bytes; empty when it does not exist or cannot be encoded (reported). */
  @GuardedBy("this")
  private Optional<Blob> encode(FlushRules rules, String name) {
    try {
      return content.encode(name, rules.codec);
    } catch (CodecException first) {
      CodecException failure = first;
      if (isRaceWithTheApplication(first)) {
        // Another thread changed the value while it was being serialized: once more, then it counts as refused.
        try {
          return content.encode(name, rules.codec);
        } catch (CodecException again) {
          failure = again;
        }
      }
      rules.reportNotReplicable(id, name, content.className(name), failure);
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

  @GuardedBy("this")
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

  /**
   * Asked on every flush: one copy, not two. The container hands back the same principal blob and notes map while
   * they do not change, so those compare by reference first.
   */
  private static boolean sameExceptAccessTime(SessionMetadata a, SessionMetadata b) {
    return b != null && a.sameExceptAccessTime(b);
  }

  /** The buddy acknowledged {@code ackedVersion}. Returns true when the session just became protected. */
  synchronized CompletableFuture<Boolean> markProtected(long ackedVersion) {
    if (fenced || gone) {
      return null;
    }
    boolean was = protectedVersion >= 0;
    protectedVersion = Math.max(protectedVersion, ackedVersion);
    if (was) {
      return null;
    }
    // In the same step as the protection, so that no flush sees the session protected and the ends not yet asked;
    // handed to the caller, which alone completes it (a later protection opens another).
    formerIdsEnded = formerIds.isEmpty() ? ENDED : new CompletableFuture<>();
    return formerIdsEnded;
  }

  /**
   * Whether the buddy that last protected this session anew ended each of its {@link #formerIds()}: a login's 200
   * means its pre-login id is gone, and a buddy that answers that a former id is owned at a higher epoch elsewhere
   * means it is not (docs/protocol.md 11.3.30). Completed by the caller {@link #markProtected} handed it to, once the
   * buddy answered each end ({@link TransferOutcomes#tellIdsGivenUp}); already true without former ids.
   */
  @SuppressWarnings("GuardedBy") // volatile: written under the lock with the protection, read without it
  CompletableFuture<Boolean> formerIdsEnded() {
    return formerIdsEnded;
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
    formerIds.add(id);
    if (formerIds.size() > MAX_FORMER_IDS) {
      formerIds.remove(0);
    }
    id = newId;
    return ++version;
  }

  /**
   * The ids this session had before its logins, newest last (at most {@value #MAX_FORMER_IDS}): a member that held a
   * copy under one of them is told it ended when it is released (docs/protocol.md 11.2).
   */
  synchronized List<String> formerIds() {
    return List.copyOf(formerIds);
  }

  /** The container materialized this (stored) session: from now on its state lives in the container. */
  synchronized void attach(io.tandem.core.session.SessionSource source) {
    content = new SessionContent.Live(source);
  }

  /** The session's bytes as a snapshot at its current version, for promotion or a handoff. */
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

  /**
   * Fences the session and returns its content, in one step, for a migration to another node: every flush that
   * prepared an update before this is in the content the caller encodes, and every flush after it finds the session
   * fenced (its request is answered 503). Empty when the session was fenced or ended already.
   */
  synchronized Optional<HandOver> handOver() {
    if (fenced || gone) {
      return Optional.empty();
    }
    fenced = true;
    return Optional.of(new HandOver(id, epoch, version, content));
  }

  /** What {@link #handOver} captured; encoded outside the session lock by {@link #encode(HandOver, FlushRules)}. */
  record HandOver(String id, long epoch, long version, SessionContent content) {}

  /** The handed-over session as bytes; an attribute that cannot be encoded is reported and left out. */
  static SessionSnapshot encode(HandOver handed, FlushRules rules) {
    SessionContent content = handed.content();
    if (content instanceof SessionContent.Stored stored) {
      return new SessionSnapshot(handed.id(), handed.epoch(), handed.version(), stored.snapshot().metadata(),
          stored.snapshot().attributes());
    }
    Map<String, Blob> attributes = new HashMap<>();
    for (String name : content.attributeNames()) {
      try {
        content.encode(name, rules.codec).ifPresent(blob -> attributes.put(name, blob));
      } catch (CodecException e) {
        rules.reportNotReplicable(handed.id(), name, content.className(name), e);
      }
    }
    return new SessionSnapshot(handed.id(), handed.epoch(), handed.version(), content.metadata(), attributes);
  }

  /** Records the newest update sent to a buddy in SYNC mode (called under the lock that sent it), and returns it. */
  synchronized InFlight sent(NodeId to, long atVersion, CompletableFuture<Message> reply) {
    lastSent = new InFlight(to, atVersion, reply);
    return lastSent;
  }

  /**
   * The newest update sent that has not been acknowledged (still in flight, refused, or failed): a request whose
   * changes it carries must wait for it. Null when every update sent so far was acknowledged.
   */
  synchronized InFlight unconfirmedSend() {
    if (lastSent == null || fenced || gone) {
      return null;
    }
    if (protectedVersion >= lastSent.version()) {
      // The buddy acknowledged a copy at this version or later since (a state-transfer batch after a refusal): it
      // carries every change that update did. Waiting on that update's own refusal would fail every later request.
      return null;
    }
    CompletableFuture<Message> reply = lastSent.reply();
    boolean acked = reply.isDone() && !reply.isCompletedExceptionally() && reply.getNow(null) instanceof Message.Ack;
    return acked ? null : lastSent;
  }

  /** Whether the buddy acknowledged {@code atVersion} or later since it last lost its copy. */
  synchronized boolean isProtectedAt(long atVersion) {
    return protectedVersion >= atVersion;
  }

  /** An update handed to the transport, and its reply. */
  record InFlight(NodeId to, long version, CompletableFuture<Message> reply) {}

  /**
   * Result of {@link #prepare}.
   *
   * @param refused attributes this flush carried as changed that could not be encoded (sent as absent)
   */
  record Prepared(FlushPlan.Kind kind, Touch touch, SessionMetadata metadata, SessionUpdate update, List<String> refused) {
    static final Prepared NOTHING = new Prepared(FlushPlan.Kind.NOTHING, null, null, null, List.of());

    static Prepared touch(Touch touch, SessionMetadata metadata) {
      return new Prepared(FlushPlan.Kind.TOUCH, touch, metadata, null, List.of());
    }

    static Prepared update(SessionUpdate update, List<String> refused) {
      return new Prepared(update instanceof SessionUpdate.Full ? FlushPlan.Kind.FULL : FlushPlan.Kind.DELTA, null,
          null, update, refused.isEmpty() ? List.of() : List.copyOf(refused));
    }
  }
}
