package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.spi.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Implementation notes: observed both by a frequent timer and by every request about to rely on ownership, so
 * the first thread to run after a pause sees it; the request's case (no pause, no suspect) takes no lock:
 *
 * <ul>
 *   <li>{@code lastSeenMillis} is moved on without a lock while the gap is below the threshold. A thread that sees a
 *       larger gap takes {@code this}, records the pause (quarantine, suspects) and only then publishes the new time:
 *       any other thread either still reads the old time, sees the gap too and waits for the lock, or reads the new
 *       time and therefore also sees the suspects recorded before it.
 *   <li>{@code suspects}, {@code pauseEndedMillis} are guarded by {@code this}. {@code anySuspect} and
 *       {@code quarantined} are written under {@code this} and read without it; {@code anySuspect} is set before the
 *       suspects are added, so a reader that sees it takes the lock and finds them all, and a reader that does not
 *       see it ran before the pause was recorded (as if it had taken the lock first).
 * </ul>
 */
final class PauseGuard {
  /** Monotonic, read in milliseconds: a wall clock set back or forth must not look like a pause. */
  private final Ticker ticker;
  private final long thresholdMillis;
  private final long settleMillis;
  private final AtomicLong lastSeenMillis;
  @GuardedBy("this")
  private final Set<String> suspects = new HashSet<>();
  @GuardedBy("this")
  private long pauseEndedMillis;
  private volatile boolean anySuspect;
  private volatile boolean quarantined;

  /**
   * @param settle how long after a pause quarantine lasts at least, so the membership's own churn (the node first
   *     seeing itself alone, then merging back) is over before it trusts a view again
   */
  PauseGuard(Ticker ticker, Duration threshold, Duration settle) {
    this.ticker = ticker;
    this.thresholdMillis = threshold.toMillis();
    this.settleMillis = settle.toMillis();
    this.lastSeenMillis = new AtomicLong(nowMillis());
  }

  private long nowMillis() {
    return ticker.read() / 1_000_000;
  }

  /** Starts measuring from now: the time between building the engine and starting it is no pause. */
  synchronized void start() {
    lastSeenMillis.accumulateAndGet(nowMillis(), Math::max);
  }

  /**
   * Records that the JVM runs now; returns the length of the pause that just ended, or 0 if there was none. After a
   * pause, the sessions {@code ownedNow} names become suspect before any other caller can ask about them.
   */
  long observe(Supplier<Collection<String>> ownedNow) {
    long last = lastSeenMillis.get(); // read before the clock: a pause between the two reads counts as one
    long now = nowMillis();
    if (now - last <= thresholdMillis) {
      if (now > last) {
        lastSeenMillis.compareAndSet(last, now); // lost: another thread moved it on, as far or nearly
      }
      return 0;
    }
    return recordPause(ownedNow);
  }

  private synchronized long recordPause(Supplier<Collection<String>> ownedNow) {
    long now = nowMillis();
    long gap = now - lastSeenMillis.get();
    if (gap <= thresholdMillis) {
      return 0; // another thread recorded this pause while this one waited for the lock
    }
    pauseEndedMillis = now;
    quarantined = true;
    anySuspect = true;
    suspects.addAll(ownedNow.get());
    lastSeenMillis.accumulateAndGet(now, Math::max); // last: whoever reads it sees the suspects
    return gap;
  }

  /**
   * Enters quarantine without a pause: the node's view just lost most of its members at once, which from the inside
   * looks the same whether they died or this node was cut off from them.
   */
  synchronized void isolated(Collection<String> ownedNow) {
    pauseEndedMillis = nowMillis();
    quarantined = true;
    anySuspect = true;
    suspects.addAll(ownedNow);
  }

  /** Whether some session may be suspect: false in the common case, read without a lock. */
  boolean anySuspect() {
    return anySuspect;
  }

  boolean isSuspect(String id) {
    return anySuspect && isRecordedSuspect(id);
  }

  private synchronized boolean isRecordedSuspect(String id) {
    return suspects.contains(id);
  }

  synchronized int suspectCount() {
    return suspects.size();
  }

  void cleared(String id) {
    if (anySuspect) {
      clearSuspect(id);
    }
  }

  private synchronized void clearSuspect(String id) {
    suspects.remove(id);
    if (suspects.isEmpty()) {
      anySuspect = false; // under the lock: a pause being recorded now sets it again before adding its suspects
    }
  }

  boolean quarantined() {
    return quarantined;
  }

  /** Lifts quarantine once the pause is {@code settle} old and the node sees other members; true if it just did. */
  synchronized boolean liftIfSettled(boolean othersInView) {
    if (quarantined && othersInView && nowMillis() - pauseEndedMillis >= settleMillis) {
      quarantined = false;
      return true;
    }
    return false;
  }
}
