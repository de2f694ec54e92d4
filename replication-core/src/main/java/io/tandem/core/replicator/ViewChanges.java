package io.tandem.core.replicator;

import java.util.concurrent.TimeUnit;

/**
 * Lets a request thread wait for the next membership view, so that a SYNC write whose buddy failed retries when the
 * view has something new to say (a new buddy, or none) instead of polling.
 *
 * <p>Implementation notes: the membership's delivery thread writes {@code viewId} under {@code this} and notifies;
 * request threads wait on the monitor. It is also volatile so that {@link #current()}, which every SYNC flush asks,
 * takes no lock: a writer changes it only under the lock, so a waiter that read it without the lock and then waits
 * under it misses no change. Nothing else is done under the lock.
 */
final class ViewChanges {
  private volatile long viewId = Long.MIN_VALUE;

  long current() {
    return viewId;
  }

  synchronized void changed(long newViewId) {
    viewId = newViewId;
    notifyAll();
  }

  /** Waits until the view is no longer {@code seen}, at most {@code nanos}; returns whether it changed. */
  synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    while (viewId == seen) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
