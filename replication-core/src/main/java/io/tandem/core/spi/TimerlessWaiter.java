package io.tandem.core.spi;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * {@link Waiter#timerless()}: blocks the calling thread, as {@link Waiter#blocking()} does, but parks it without a
 * timeout. {@code Future.get(timeout)} parks with one, and a timed park arms a kernel timer and cancels it again for
 * every wait, which is every SYNC request (its acknowledgement takes a round trip), although nearly every wait ends by
 * its reply long before its timeout. Here the reply wakes the thread ({@code whenComplete}), and one sweeper thread
 * for the JVM ({@code tandem-wait-sweep}) wakes the threads whose timeout passed: it sleeps until the earliest
 * deadline of the threads waiting (at most {@link #MAX_SLEEP_NANOS}), so the timers armed are the sweeper's, a few a
 * second, not one per request. A waiting thread is woken at its deadline by the sweeper whatever the future does, so
 * no wait outlasts its timeout by more than the sweeper's scheduling: a reply that never comes (a lost
 * acknowledgement) times out as it did. Futures that are not {@link CompletableFuture}s are waited for as before.
 *
 * <p>Implementation notes: each thread that ever waited owns one {@link Slot} (a thread-local, registered once in
 * {@code slots}); a slot's {@code deadline} ({@link System#nanoTime}) is non-zero exactly while its thread waits, written
 * by that thread and read by the sweeper. The sweeper publishes in {@code plannedWake} when it will next look, then
 * scans; a waiter publishes its deadline, then reads {@code plannedWake} and wakes the sweeper if its deadline is
 * earlier (both volatile: either the scan sees the deadline, or the waiter sees the plan the scan made without it).
 * Slots of threads that ended are dropped by the sweeper. A completion that comes after its waiter timed out wakes
 * that thread once more, later; every park here and in the JDK loops on its own condition, so a spare wake-up is
 * harmless. The sweeper survives anything its loop throws.
 */
final class TimerlessWaiter implements Waiter {
  static final TimerlessWaiter INSTANCE = new TimerlessWaiter();
  /** The longest the sweeper sleeps with nobody waiting, or only far deadlines. */
  static final long MAX_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Logger LOG = System.getLogger(TimerlessWaiter.class.getName());

  private final Set<Slot> slots = ConcurrentHashMap.newKeySet();
  private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(this::register);
  /** When the sweeper will look at the slots next, on {@link System#nanoTime}. */
  private volatile long plannedWake;
  private volatile Thread sweeper;

  private TimerlessWaiter() {}

  /** One waiting thread's registration, and what a completed future calls to wake it. */
  static final class Slot implements BiConsumer<Object, Throwable> {
    final Thread thread;
    /** When its wait times out, on {@link System#nanoTime}; 0 while it does not wait. */
    volatile long deadline;

    Slot(Thread thread) {
      this.thread = thread;
    }

    @Override
    public void accept(Object value, Throwable failure) {
      LockSupport.unpark(thread);
    }
  }

  @Override
  public <T> T await(Future<T> future, long timeoutNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (future.isDone()) {
      return future.get();
    }
    if (!(future instanceof CompletableFuture<T> completable)) {
      return future.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }
    if (timeoutNanos <= 0) {
      throw new TimeoutException();
    }
    Thread sweeping = sweeper();
    Slot slot = mine.get();
    long deadline = System.nanoTime() + timeoutNanos;
    if (deadline == 0) {
      deadline = 1; // 0 means "not waiting"
    }
    slot.deadline = deadline;
    try {
      if (deadline - plannedWake < 0) {
        LockSupport.unpark(sweeping); // sooner than it planned to look
      }
      completable.whenComplete(slot);
      while (!completable.isDone()) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new TimeoutException();
        }
        LockSupport.park(this);
      }
    } finally {
      slot.deadline = 0;
    }
    return completable.get();
  }

  private Slot register() {
    Slot slot = new Slot(Thread.currentThread());
    slots.add(slot);
    return slot;
  }

  private Thread sweeper() {
    Thread running = sweeper;
    if (running != null) {
      return running;
    }
    synchronized (this) {
      if (sweeper == null) {
        Thread thread = new Thread(this::sweep, "tandem-wait-sweep");
        thread.setDaemon(true);
        thread.setContextClassLoader(TimerlessWaiter.class.getClassLoader()); // not a webapp's, whoever starts it
        plannedWake = System.nanoTime(); // until it has looked: a waiter wakes it (harmless if it had not parked yet)
        thread.start();
        sweeper = thread;
      }
      return sweeper;
    }
  }

  private void sweep() {
    while (true) {
      try {
        long now = System.nanoTime();
        long earliest = now + MAX_SLEEP_NANOS;
        plannedWake = earliest;
        for (Slot slot : slots) {
          long deadline = slot.deadline;
          if (deadline != 0) {
            if (now - deadline >= 0) {
              LockSupport.unpark(slot.thread);
            } else if (deadline - earliest < 0) {
              earliest = deadline;
            }
          } else if (!slot.thread.isAlive()) {
            slots.remove(slot);
          }
        }
        plannedWake = earliest;
        LockSupport.parkNanos(this, earliest - now);
      } catch (RuntimeException | Error e) {
        LOG.log(Level.ERROR, "Tandem's wait sweeper failed; it goes on", e);
      }
    }
  }
}
