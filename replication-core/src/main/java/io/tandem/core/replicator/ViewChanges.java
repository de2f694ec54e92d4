package io.tandem.core.replicator;

import io.tandem.core.spi.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Lets a request thread wait for the next change of the ring it replicates on (a new membership view, or a peer
 * suspected or cleared, see {@link SuspectedPeers}), so that a SYNC write whose buddy failed retries when there is
 * something new to say (a new buddy, or none) instead of polling.
 *
 * <p>Implementation notes: {@code generation} counts changes; it is written under {@code this} by whichever thread
 * changes the ring (the engine serialises those under its ring lock) and waiters wait on the monitor. It is also
 * volatile so that {@link #current()}, which every SYNC flush asks, takes no lock: a writer changes it only under
 * the lock, so a waiter that read it without the lock and then waits under it misses no change. Nothing else is done
 * under the lock. Deadlines are measured on the engine's ticker; the wait itself is the monitor's, in real time (a
 * blocking wait, to become a future for the simulation: docs/protocol.md, "Time and threads").
 */
final class ViewChanges {
  private final Ticker ticker;
  private volatile long generation;

  ViewChanges(Ticker ticker) {
    this.ticker = ticker;
  }

  long current() {
    return generation;
  }

  synchronized void changed() {
    generation++;
    notifyAll();
  }

  /** Waits until the generation is no longer {@code seen}, at most {@code nanos}; returns whether it changed. */
  synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
    long deadline = ticker.read() + nanos;
    while (generation == seen) {
      long left = deadline - ticker.read();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /**
   * Waits at most {@code nanos} until {@code done} holds, looking again after each change; returns whether it held. A
   * change between the look and the wait ends the wait at once (the generation is read before looking).
   */
  boolean awaitUntil(BooleanSupplier done, long nanos) throws InterruptedException {
    long deadline = ticker.read() + nanos;
    while (true) {
      long seen = current();
      if (done.getAsBoolean()) {
        return true;
      }
      long left = deadline - ticker.read();
      if (left <= 0 || !awaitChange(seen, left)) {
        return false;
      }
    }
  }
}
