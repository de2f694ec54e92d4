package io.tandem.core.replicator;

import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Lets a request thread wait for the next change of the ring it replicates on (a new membership view, or a peer
 * suspected or cleared, see {@link SuspectedPeers}), so that a SYNC write whose buddy failed retries when there is
 * something new to say (a new buddy, or none) instead of polling.
 *
 * <p>Implementation notes: {@code generation} counts changes, and {@code next} is the future the next change completes.
 * Both are written only in {@link #changed}, under {@code this} ({@link RingTracker} calls it under its ring lock, so
 * changes never race; the monitor only keeps the pair consistent), and read without a lock: a waiter reads {@code
 * next} before it compares the generation, so a change made between the two is seen either as a new generation or as
 * a completed future, never missed. The future is completed after the monitor is released (no future completed under a lock:
 * whatever waits on it runs at once). The wait itself goes through the engine's {@link Waiter}: it blocks a request
 * thread in production and parks an actor in the simulation; its deadline is measured on the engine's ticker.
 */
final class ViewChanges {
  private final Ticker ticker;
  private final Waiter waiter;
  private volatile long generation;
  private volatile CompletableFuture<Void> next = new CompletableFuture<>();

  ViewChanges(Ticker ticker, Waiter waiter) {
    this.ticker = ticker;
    this.waiter = waiter;
  }

  long current() {
    return generation;
  }

  void changed() {
    CompletableFuture<Void> reached;
    synchronized (this) {
      reached = next;
      next = new CompletableFuture<>();
      generation++;
    }
    reached.complete(null);
  }

  /** Waits until the generation is no longer {@code seen}, at most {@code nanos}; returns whether it changed. */
  boolean awaitChange(long seen, long nanos) throws InterruptedException {
    long deadline = ticker.read() + nanos;
    while (true) {
      CompletableFuture<Void> change = next;
      if (generation != seen) {
        return true;
      }
      long left = deadline - ticker.read();
      if (left <= 0) {
        return false;
      }
      try {
        waiter.await(change, left);
      } catch (TimeoutException e) {
        return generation != seen;
      } catch (ExecutionException e) {
        throw new IllegalStateException("a ring change is never completed exceptionally", e);
      }
    }
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
