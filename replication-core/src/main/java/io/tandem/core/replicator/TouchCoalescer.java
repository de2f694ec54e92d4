package io.tandem.core.replicator;

import io.tandem.core.wire.Message.Touch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the access times of read-only requests so that they reach the buddy as one batch, not one message per
 * request. A touch waits at most until its deadline (the session's touch lag bound after the first pending touch);
 * the maintenance tick sends the whole batch once any deadline has passed.
 *
 * <p>Implementation notes: guarded by {@code this}; request threads add, the maintenance thread drains.
 */
final class TouchCoalescer {
  private final Map<String, Touch> pending = new LinkedHashMap<>();
  private long earliestDeadline = Long.MAX_VALUE;

  synchronized void add(Touch touch, long deadlineMillis) {
    Touch previous = pending.get(touch.sessionId());
    if (previous == null || previous.lastAccessedTime() <= touch.lastAccessedTime()) {
      pending.put(touch.sessionId(), touch);
    }
    earliestDeadline = Math.min(earliestDeadline, deadlineMillis);
  }

  /** A full or delta carries the access time itself, so a pending touch of that session is redundant. */
  synchronized void forget(String sessionId) {
    pending.remove(sessionId);
  }

  /** All pending touches if the earliest deadline has passed at {@code nowMillis}, else an empty list. */
  synchronized List<Touch> drainIfDue(long nowMillis) {
    if (pending.isEmpty() || nowMillis < earliestDeadline) {
      return List.of();
    }
    List<Touch> due = new ArrayList<>(pending.values());
    pending.clear();
    earliestDeadline = Long.MAX_VALUE;
    return due;
  }

  synchronized int size() {
    return pending.size();
  }
}
