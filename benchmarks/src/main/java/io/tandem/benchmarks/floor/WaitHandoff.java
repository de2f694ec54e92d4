package io.tandem.benchmarks.floor;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The part of a SYNC request's cost that no replication can avoid while the request's thread waits: the thread parks,
 * another thread (in Tandem, the transport's selector thread that read the acknowledgement) wakes, and wakes it. Here
 * nothing is sent and nothing is awaited but that hand-off: {@link #await()} queues the caller, wakes the waker thread
 * unless a wake-up is already pending, and parks until the waker has released it. The waker releases everything queued
 * at each wake-up, as a selector thread that reads one cumulative acknowledgement releases every request it covers, so
 * under load one wake-up of the waker serves many requests, the most favourable batching there is.
 *
 * <p>Implementation notes: {@code queue} is shared (any thread adds, the waker alone polls); {@code wakeUpPending} is
 * set by whichever caller finds it clear, which then unparks the waker, and cleared by the waker before it looks at the
 * queue a last time, so a caller that queued after the waker's last poll either sees it clear and unparks the waker
 * or was queued before that last look. A waiter's {@code released} is written by the waker and read by its caller.
 */
public final class WaitHandoff implements AutoCloseable {

  /** A caller's bound on one park, so that a waker that died cannot hold a request for ever. */
  private static final long PARK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final class Waiter {
    final Thread thread = Thread.currentThread();
    volatile boolean released;
  }

  private final ConcurrentLinkedQueue<Waiter> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeUpPending = new AtomicBoolean();
  private final Thread waker;
  private volatile boolean closed;
  private volatile long wakeUps;

  public WaitHandoff(String threadName) {
    waker = new Thread(this::release, threadName);
    waker.setDaemon(true);
    waker.start();
  }

  /**
   * Parks the calling thread until the waker thread released it: true then; false if it gave up after about a second
   * (a waker that is gone) or the hand-off was closed.
   */
  public boolean await() {
    Waiter waiter = new Waiter();
    queue.add(waiter);
    if (wakeUpPending.compareAndSet(false, true)) {
      LockSupport.unpark(waker);
    }
    long deadline = System.nanoTime() + PARK_NANOS;
    while (!waiter.released && !closed) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      LockSupport.parkNanos(this, left);
    }
    return waiter.released;
  }

  /** How many times the waker thread woke to release waiters (a moment's reading). */
  public long wakeUps() {
    return wakeUps;
  }

  private void release() {
    while (!closed) {
      LockSupport.park(this);
      if (!wakeUpPending.get()) {
        continue; // spurious
      }
      wakeUps++; // the waker alone writes it
      do {
        wakeUpPending.set(false);
        for (Waiter waiter; (waiter = queue.poll()) != null; ) {
          waiter.released = true;
          LockSupport.unpark(waiter.thread);
        }
      } while (!queue.isEmpty() && !closed);
    }
  }

  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(waker);
    for (Waiter waiter; (waiter = queue.poll()) != null; ) {
      LockSupport.unpark(waiter.thread);
    }
  }
}
