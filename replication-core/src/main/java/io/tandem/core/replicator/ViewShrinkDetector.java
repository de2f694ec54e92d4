package io.tandem.core.replicator;

import io.tandem.core.spi.Ticker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Tells when this node's view lost at least half of its members at once, or within a short window: failure
 * detection may remove members that went silent together in one view, or one view at a time milliseconds apart.
 * Two failures seconds apart (a crash, re-protection, another crash) are not a burst.
 *
 * <p>Implementation notes: called only from the membership thread (views are delivered in order, one at a time).
 */
final class ViewShrinkDetector {
  private final Ticker ticker;
  private final long windowMillis;
  /** {until when the view was current (for the newest: when it began), its size}, oldest first. */
  private final Deque<long[]> recent = new ArrayDeque<>();

  ViewShrinkDetector(Ticker ticker, Duration window) {
    this.ticker = ticker;
    this.windowMillis = window.toMillis();
  }

  /**
   * Records a view of {@code size} members; true if the view it replaces, or any view that was still current within
   * the window, had three members or more and at least twice this many.
   */
  boolean lostMajority(int size) {
    long now = ticker.read() / 1_000_000;
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
