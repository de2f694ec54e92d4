package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.time.InstantSource;

/**
 * Session ids this node found nowhere in the cluster a moment ago, so that a client repeating a stale or forged
 * cookie (or Tomcat asking for the same id several times in one request) costs one map lookup, not a message. An id
 * is only remembered when the answer cannot be stale: the membership view has not changed for the settle window
 * (a view change moves sessions: a dead owner's buddy adopts them, a leaving node hands them over), and did not
 * change while the cluster was being asked. Every view change forgets everything.
 *
 * <p>An id that appears on this node (created, migrated in, adopted, or stored as a backup) is forgotten; and the
 * engine consults this memory only after its own sessions and backups, so a session held here is found whatever
 * is remembered.
 *
 * <p>Implementation notes: {@code viewChanges} and {@code viewChangedAt} are guarded by {@code this}; {@link
 * #remember} checks them and adds the id under the same lock that {@link #viewChanged} clears under, so an id
 * looked up before a view change is never remembered after it. The ids themselves live in a {@link RecentIds},
 * which has its own lock; that lock is taken inside this one and never the other way round.
 */
final class UnknownSessions {
  /** How many ids are remembered at most: a flood of distinct ids pushes out the oldest, nothing more. */
  static final int CAPACITY = 10_000;
  /** How long an id is remembered. */
  static final Duration TTL = Duration.ofSeconds(30);

  private final InstantSource clock;
  private final long settleMillis;
  private final RecentIds ids;
  @GuardedBy("this")
  private long viewChanges;
  @GuardedBy("this")
  private long viewChangedAt = Long.MIN_VALUE;

  /**
   * @param settle how long after a view change sessions may still be on their way to where the ring puts them:
   *     lookups then also ask every member, and nothing is remembered
   */
  UnknownSessions(InstantSource clock, Duration settle) {
    this(clock, settle, TTL, CAPACITY);
  }

  UnknownSessions(InstantSource clock, Duration settle, Duration ttl, int capacity) {
    this.clock = clock;
    this.settleMillis = settle.toMillis();
    this.ids = new RecentIds(clock, ttl, capacity);
  }

  /** A new view was installed: sessions may have moved, so nothing found missing before it still counts. */
  synchronized void viewChanged() {
    viewChanges++;
    viewChangedAt = clock.millis(); // wall clock: see docs/protocol.md 8.4
    ids.clear();
  }

  /** Whether the last view change is recent enough that sessions may still be moving (true before the first view). */
  synchronized boolean viewRecentlyChanged() {
    // wall clock: see docs/protocol.md 8.4
    return viewChangedAt == Long.MIN_VALUE || clock.millis() - viewChangedAt < settleMillis;
  }

  /** A token to pass to {@link #remember} after asking the cluster: the view changes seen so far. */
  synchronized long beforeAsking() {
    return viewChanges;
  }

  /**
   * Remembers that no member holds {@code id}, unless the view changed since {@code token} was taken or changed
   * recently. Returns whether it was remembered.
   */
  synchronized boolean remember(String id, long token) {
    if (token != viewChanges || viewRecentlyChanged()) {
      return false;
    }
    ids.add(id);
    return true;
  }

  boolean isRemembered(String id) {
    return ids.contains(id);
  }

  /** The session appeared on this node. No lock when nothing is remembered. */
  void appeared(String id) {
    ids.remove(id);
  }

  int size() {
    return ids.size();
  }
}
