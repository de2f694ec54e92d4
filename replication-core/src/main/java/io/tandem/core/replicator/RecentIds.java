package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded set of session ids, each remembered for a fixed time with a number (for ids handed away, the epoch they
 * were handed at): the ids found nowhere in the cluster, or the ids this node handed to another member a moment ago. When full, the oldest entry goes first, so a flood of distinct
 * ids costs bounded memory and only pushes out the oldest memories (which then cost one lookup again, never a
 * wrong answer). Expired entries are dropped as they are met, oldest first, never by a sweep.
 *
 * <p>Implementation notes: every entry has the same lifetime, so insertion order is expiry order and a
 * {@link LinkedHashMap} in insertion order is both the index and the eviction queue. It is guarded by {@code this};
 * each method holds the lock for a map operation or two and never for anything else. {@code size} mirrors the map's
 * size so that {@link #isEmpty()}, asked on hot paths to skip the lock, reads no lock.
 */
final class RecentIds {
  private final InstantSource clock;
  private final long ttlMillis;
  private final int capacity;
  /** When this set was made (clock millis): it holds nothing from before, such as a former run's ids. */
  private final long madeAtMillis;
  /** Id → the time (clock millis) it is forgotten at, and the number remembered with it. */
  @GuardedBy("this")
  private final LinkedHashMap<String, long[]> expiries = new LinkedHashMap<>();
  private volatile int size;

  RecentIds(InstantSource clock, Duration ttl, int capacity) {
    if (ttl.isNegative() || ttl.isZero() || capacity < 1) {
      throw new IllegalArgumentException("ttl must be positive and capacity >= 1, got " + ttl + " and " + capacity);
    }
    this.clock = clock;
    this.ttlMillis = ttl.toMillis();
    this.capacity = capacity;
    this.madeAtMillis = clock.millis();
  }

  /**
   * Whether this set is at least one lifetime old, so that an id it does not hold was not added within the lifetime.
   * Before that, an id missing here may have been added before the set was made: by a former run of this node, which
   * restarted in place under the same node id and remembers nothing of it.
   */
  boolean spansItsLifetime() {
    return clock.millis() - madeAtMillis >= ttlMillis;
  }

  /** Remembers {@code id} for the lifetime from now (again from now, if it was remembered already). */
  void add(String id) {
    add(id, 0);
  }

  /** {@link #add(String)}, with {@code value}, which {@link #valueOf} answers. */
  synchronized void add(String id, long value) {
    long now = clock.millis(); // as given: the engine's ticker, or for unknown ids still the time of day (8.4)
    dropExpired(now);
    expiries.remove(id); // re-inserted at the tail, where its new expiry belongs
    expiries.put(id, new long[] {now + ttlMillis, value});
    if (expiries.size() > capacity) {
      Iterator<String> oldest = expiries.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    size = expiries.size();
  }

  /** Whether {@code id} is remembered and its time has not run out. */
  boolean contains(String id) {
    return valueOf(id).isPresent();
  }

  /** The number {@code id} is remembered with, if it is remembered and its time has not run out. */
  java.util.OptionalLong valueOf(String id) {
    if (size == 0) {
      return java.util.OptionalLong.empty();
    }
    synchronized (this) {
      long[] entry = expiries.get(id);
      if (entry == null) {
        return java.util.OptionalLong.empty();
      }
      if (entry[0] <= clock.millis()) { // as given (see add)
        expiries.remove(id);
        size = expiries.size();
        return java.util.OptionalLong.empty();
      }
      return java.util.OptionalLong.of(entry[1]);
    }
  }

  /** Forgets {@code id}; without a lock when nothing is remembered (the common case on hot paths). */
  void remove(String id) {
    if (size == 0) {
      return;
    }
    synchronized (this) {
      expiries.remove(id);
      size = expiries.size();
    }
  }

  synchronized void clear() {
    expiries.clear();
    size = 0;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** How many ids are held, expired ones not yet dropped included; for tests and figures. */
  int size() {
    return size;
  }

  @GuardedBy("this")
  private void dropExpired(long now) {
    for (Iterator<Map.Entry<String, long[]>> it = expiries.entrySet().iterator(); it.hasNext(); ) {
      if (it.next().getValue()[0] > now) {
        return;
      }
      it.remove();
    }
  }
}
