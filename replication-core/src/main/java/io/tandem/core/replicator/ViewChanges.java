package io.tandem.core.replicator;

import java.util.concurrent.TimeUnit;

/**
 * Lets a request thread wait for the next change of the ring it replicates on (a new membership view, or a peer
 * suspected or cleared, see {@link SuspectedPeers}), so that a SYNC write whose buddy failed retries when there is
 * something new to say (a new buddy, or none) instead of polling.
 *
 * <p>Implementation notes: {@code generation} counts changes; it is written under {@code this} by whichever thread
 * changes the ring (the engine serialises those under its ring lock) and waiters wait on the monitor. It is also
 * volatile so that {@link #current()}, which every SYNC flush asks, takes no lock: a writer changes it only under
 * the lock, so a waiter that read it without the lock and then waits under it misses no change. Nothing else is done
 * under the lock.
 */
final class ViewChanges {
  private volatile long generation;

  long current() {
    return generation;
  }

  synchronized void changed() {
    generation++;
    notifyAll();
  }

  /** Waits until the generation is no longer {@code seen}, at most {@code nanos}; returns whether it changed. */
  synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    while (generation == seen) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
