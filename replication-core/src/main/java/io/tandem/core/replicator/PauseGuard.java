package io.tandem.core.replicator;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Notices that this JVM did not run for longer than the pause threshold (a long GC, SIGSTOP, a frozen VM), or that
 * the node lost most of its view at once (it may be the one cut off), and keeps the node in quarantine until it has a
 * view with other members again and the membership had time to settle.
 *
 * <p>Why: while a node is frozen past failure detection, the others declare it dead and take its sessions over at a
 * higher epoch. When it wakes, its own copies are stale, and its membership may briefly show it alone, so it would
 * "adopt" the backups it holds as if their owners had died. Quarantine stops that: sessions it owned at the pause are
 * suspect and must be confirmed by the other members before they are served; it adopts nothing and promotes no
 * backup until quarantine lifts.
 *
 * <p>Implementation notes: every field is guarded by {@code this} ({@code suspects} is also a concurrent set, for
 * {@link #cleared} from request threads). Observed both by a frequent timer and by every caller that is
 * about to rely on ownership, so the first thread to run after a pause sees it.
 */
final class PauseGuard {
  /** Monotonic milliseconds: a wall clock set back or forth must not look like a pause. */
  private final LongSupplier clock;
  private final long thresholdMillis;
  private final long settleMillis;
  private final Set<String> suspects = ConcurrentHashMap.newKeySet();
  private long lastSeenMillis;
  private long pauseEndedMillis;
  private boolean quarantined;

  /**
   * @param settle how long after a pause quarantine lasts at least, so the membership's own churn (the node first
   *     seeing itself alone, then merging back) is over before it trusts a view again
   */
  PauseGuard(LongSupplier monotonicMillis, Duration threshold, Duration settle) {
    this.clock = monotonicMillis;
    this.thresholdMillis = threshold.toMillis();
    this.settleMillis = settle.toMillis();
    this.lastSeenMillis = clock.getAsLong();
  }

  /** Starts measuring from now: the time between building the engine and starting it is no pause. */
  synchronized void start() {
    lastSeenMillis = clock.getAsLong();
  }

  /**
   * Records that the JVM runs now; returns the length of the pause that just ended, or 0 if there was none. After a
   * pause, the sessions {@code ownedNow} names become suspect before any other caller can ask about them.
   */
  synchronized long observe(Supplier<Collection<String>> ownedNow) {
    long now = clock.getAsLong();
    long gap = now - lastSeenMillis;
    lastSeenMillis = now;
    if (gap <= thresholdMillis) {
      return 0;
    }
    pauseEndedMillis = now;
    quarantined = true;
    suspects.addAll(ownedNow.get());
    return gap;
  }

  /**
   * Enters quarantine without a pause: the node's view just lost most of its members at once, which from the inside
   * looks the same whether they died or this node was cut off from them.
   */
  synchronized void isolated(Collection<String> ownedNow) {
    pauseEndedMillis = clock.getAsLong();
    quarantined = true;
    suspects.addAll(ownedNow);
  }

  synchronized boolean isSuspect(String id) {
    return suspects.contains(id);
  }

  synchronized int suspectCount() {
    return suspects.size();
  }

  void cleared(String id) {
    suspects.remove(id);
  }

  synchronized boolean quarantined() {
    return quarantined;
  }

  /** Lifts quarantine once the pause is {@code settle} old and the node sees other members; true if it just did. */
  synchronized boolean liftIfSettled(boolean othersInView) {
    if (quarantined && othersInView && clock.getAsLong() - pauseEndedMillis >= settleMillis) {
      quarantined = false;
      return true;
    }
    return false;
  }
}
