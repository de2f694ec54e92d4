package io.tandem.core.replicator;

import io.tandem.core.wire.Message.Touch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects the access times of read-only requests so that they reach the buddy as one batch, not one message per
 * request. A touch waits at most until its deadline (the session's touch lag bound after the first pending touch);
 * the maintenance tick sends the whole batch once any deadline has passed.
 *
 * <p>Implementation notes: no lock of its own, since every request that replicates adds or forgets a touch. {@code
 * pending} is a concurrent map (a touch and a forget of one session come from its flushes, which the session's lock
 * orders); {@code earliestDeadline} only moves down between drains, by compare-and-set, and is read first so that
 * the common case (an earlier deadline is pending already) writes nothing shared. The maintenance thread drains: it
 * resets the deadline <em>before</em> taking the touches, and {@link #add} stores its touch <em>before</em> lowering
 * the deadline, so a touch the drain does not take keeps a deadline for the next one.
 */
final class TouchCoalescer {
  private final ConcurrentHashMap<String, Touch> pending = new ConcurrentHashMap<>();
  private final AtomicLong earliestDeadline = new AtomicLong(Long.MAX_VALUE);

  void add(Touch touch, long deadlineMillis) {
    pending.merge(touch.sessionId(), touch, TouchCoalescer::newer);
    long earliest = earliestDeadline.get();
    while (deadlineMillis < earliest && !earliestDeadline.compareAndSet(earliest, deadlineMillis)) {
      earliest = earliestDeadline.get();
    }
  }

  private static Touch newer(Touch held, Touch added) {
    return held.lastAccessedTime() <= added.lastAccessedTime() ? added : held;
  }

  /** A full or delta carries the access time itself, so a pending touch of that session is redundant. */
  void forget(String sessionId) {
    if (!pending.isEmpty()) {
      pending.remove(sessionId);
    }
  }

  /** All pending touches if the earliest deadline has passed at {@code nowMillis}, else an empty list. */
  List<Touch> drainIfDue(long nowMillis) {
    if (nowMillis < earliestDeadline.get()) {
      return List.of();
    }
    earliestDeadline.set(Long.MAX_VALUE);
    List<Touch> due = new ArrayList<>();
    for (Map.Entry<String, Touch> entry : pending.entrySet()) {
      // A touch replaced meanwhile stays, with the deadline its add set after the reset above.
      if (pending.remove(entry.getKey(), entry.getValue())) {
        due.add(entry.getValue());
      }
    }
    return due;
  }

  int size() {
    return pending.size();
  }
}
