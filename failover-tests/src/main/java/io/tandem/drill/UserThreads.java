package io.tandem.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every workload shares: one daemon thread per simulated user (or tab), a recorded history, the warm-up
 * latch, and the stop flag that lets users end once they made their minimum writes.
 *
 * <p>Implementation notes: {@code history} and {@code browsers} are concurrent; {@code stop} is set by the drill
 * thread; {@code threads} is only touched by the drill thread.
 */
abstract class UserThreads implements Workload {
  protected final ConcurrentLinkedQueue<Operation> history = new ConcurrentLinkedQueue<>();
  protected final Map<Integer, Browser> browsers = new ConcurrentHashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final CountDownLatch warm;
  private final int minWrites;
  private final int maxWrites;

  /** What one user thread runs; it calls {@code warmedUp} once it has a few acknowledged writes. */
  interface UserLoop {
    void run(Runnable warmedUp) throws InterruptedException;
  }

  UserThreads(int threadCount, int minWrites, int maxWrites) {
    this.warm = new CountDownLatch(threadCount);
    this.minWrites = minWrites;
    this.maxWrites = maxWrites;
  }

  /** Starts one user thread; it counts towards the warm-up once, even if it ends early. */
  protected final void startUser(String name, UserLoop loop) {
    Thread thread = new Thread(() -> {
      boolean[] counted = {false};
      Runnable warmedUp = () -> {
        if (!counted[0]) {
          counted[0] = true;
          warm.countDown();
        }
      };
      try {
        loop.run(warmedUp);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        warmedUp.run(); // a user that ended early must not hold the drill at its warm-up
      }
    }, name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  /** Whether the n-th write (0-based) should be made: under the maximum, and the minimum until the drill says stop. */
  protected final boolean keepWriting(int n) {
    return n < maxWrites && !(stop.get() && n >= minWrites);
  }

  @Override
  public final boolean awaitWarm(Duration timeout) throws InterruptedException {
    return warm.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public final void finish(Duration timeout) throws InterruptedException {
    stop.set(true);
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread thread : threads) {
      thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not finish within " + timeout);
      }
    }
  }

  @Override
  public final List<Operation> history() {
    return List.copyOf(history);
  }

  @Override
  public final Map<Integer, Browser> browsers() {
    return Map.copyOf(browsers);
  }
}
