package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sessions this node owns, and how many of them have no copy on the current buddy.
 *
 * <p>Implementation notes: the map is concurrent; the unprotected count changes only on the transitions that
 * {@link OwnedSession#markProtected} and {@link OwnedSession#markUnprotected} report, which they make under the
 * session's lock, so the count is exact. The protection clock ({@code lostAt}, {@code lastRecovery}) is guarded by
 * {@code this}.
 */
final class OwnedSessions {
  private final ConcurrentHashMap<String, OwnedSession> byId;
  private final AtomicInteger unprotected = new AtomicInteger();
  private final InstantSource clock;
  @GuardedBy("this")
  private long viewChangedAt = -1;
  @GuardedBy("this")
  private Duration lastRecovery;

  OwnedSessions(InstantSource clock) {
    this(clock, new ConcurrentHashMap<>());
  }

  /** @param byId an empty map to index the sessions in (tests count the lookups through it) */
  OwnedSessions(InstantSource clock, ConcurrentHashMap<String, OwnedSession> byId) {
    this.clock = clock;
    this.byId = byId;
  }

  /** Adds a session that the buddy does not hold yet. Returns false when the id is already owned here. */
  boolean add(OwnedSession session) {
    if (byId.putIfAbsent(session.id(), session) != null) {
      return false;
    }
    unprotected.incrementAndGet();
    return true;
  }

  Optional<OwnedSession> get(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** Forgets a session that was fenced, ended or handed away (the caller set that state first). */
  void retire(OwnedSession session) {
    synchronized (session) {
      if (byId.remove(session.id(), session) && !session.isProtected()) {
        decrementUnprotected();
      }
    }
  }

  void rekey(String oldId, String newId, OwnedSession session) {
    if (byId.remove(oldId, session)) {
      byId.put(newId, session);
    }
  }

  Collection<OwnedSession> all() {
    return byId.values();
  }

  int size() {
    return byId.size();
  }

  /** Returns whether the session was unprotected until now (a buddy holds a copy of it again). */
  /**
   * Records that the buddy holds {@code version} or later. Returns null unless the session was unprotected until now;
   * then the future its former ids' ends complete ({@link OwnedSession#formerIdsEnded}), for the caller to complete.
   */
  CompletableFuture<Boolean> markProtected(OwnedSession session, long version) {
    CompletableFuture<Boolean> anew = session.markProtected(version);
    if (anew != null) {
      decrementUnprotected();
    }
    return anew;
  }

  void markUnprotected(OwnedSession session) {
    if (session.markUnprotected()) {
      unprotected.incrementAndGet();
    }
  }

  int unprotectedCount() {
    return Math.max(0, unprotected.get());
  }

  /** A view change started a recovery: the clock runs until every owned session is protected again. */
  synchronized void recoveryStarted() {
    viewChangedAt = clock.millis();
    if (unprotected.get() <= 0) {
      recoveryFinished();
    }
  }

  synchronized Optional<Duration> lastRecovery() {
    return Optional.ofNullable(lastRecovery);
  }

  synchronized boolean isRecovering() {
    return viewChangedAt >= 0;
  }

  private void decrementUnprotected() {
    if (unprotected.decrementAndGet() <= 0) {
      synchronized (this) {
        recoveryFinished();
      }
    }
  }

  @GuardedBy("this")
  private void recoveryFinished() {
    if (viewChangedAt >= 0) {
      lastRecovery = Duration.ofMillis(clock.millis() - viewChangedAt);
      viewChangedAt = -1;
    }
  }
}
