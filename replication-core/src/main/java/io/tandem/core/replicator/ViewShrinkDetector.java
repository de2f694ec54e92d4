package io.tandem.core.replicator;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Tells when this node's view lost at least half of its members at once, or within a short window: failure
 * detection may remove members that went silent together in one view, or one view at a time milliseconds apart.
 * Two failures seconds apart (a crash, re-protection, another crash) are not a burst.
 *
 * <p>Implementation notes: called only from the membership thread (views are delivered in order, one at a time).
 */
final class ViewShrinkDetector {
  private final LongSupplier clock;
  private final long windowMillis;
  /** {until when the view was current (for the newest: when it began), its size}, oldest first. */
  private final Deque<long[]> recent = new ArrayDeque<>();

  ViewShrinkDetector(LongSupplier monotonicMillis, Duration window) {
    this.clock = monotonicMillis;
    this.windowMillis = window.toMillis();
  }

  /**
   * Records a view of {@code size} members; true if the view it replaces, or any view that was still current within
   * the window, had three members or more and at least twice this many.
   */
  boolean lostMajority(int size) {
    long now = clock.getAsLong();
    if (!recent.isEmpty()) {
      recent.peekLast()[0] = now; // the view being replaced was current until now
    }
    while (!recent.isEmpty() && now - recent.peekFirst()[0] > windowMillis) {
      recent.removeFirst();
    }
    long peak = recent.stream().mapToLong(v -> v[1]).max().orElse(size);
    recent.addLast(new long[] {now, size});
    return peak >= 3 && size * 2L <= peak;
  }
}
