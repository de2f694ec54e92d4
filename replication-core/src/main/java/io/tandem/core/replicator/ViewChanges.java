package io.tandem.core.replicator;

import java.util.concurrent.TimeUnit;

/**
 * Lets a request thread wait for the next membership view, so that a SYNC write whose buddy failed retries when the
 * view has something new to say (a new buddy, or none) instead of polling.
 *
 * <p>Implementation notes: {@code viewId} is guarded by {@code this}; the membership's delivery thread writes it,
 * request threads wait on the monitor. Nothing else is done under the lock.
 */
final class ViewChanges {
  private long viewId = Long.MIN_VALUE;

  synchronized long current() {
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
