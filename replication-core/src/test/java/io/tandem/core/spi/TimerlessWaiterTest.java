package io.tandem.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Waiter#timerless()} keeps {@link Waiter}'s contract (that of {@code Future.get(timeout)}) without a timed
 * park: above all, a future that never completes (a lost acknowledgement) still ends the wait with a timeout, woken
 * by the sweeper, and never before the timeout. No test here bounds how long anything takes beyond "it returns".
 */
class TimerlessWaiterTest {
  private static final long MILLIS = TimeUnit.MILLISECONDS.toNanos(1);
  private final Waiter waiter = Waiter.timerless();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  @Test
  void await_futureNeverCompleted_timesOut_notBeforeTheTimeout() {
    CompletableFuture<String> lost = new CompletableFuture<>();
    long start = System.nanoTime();

    assertThatThrownBy(() -> waiter.await(lost, 50 * MILLIS)).isInstanceOf(TimeoutException.class);
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(50 * MILLIS);
  }

  @Test
  void await_completedByAnotherThread_returnsItsValue() throws Exception {
    CompletableFuture<String> reply = new CompletableFuture<>();
    CountDownLatch waiting = new CountDownLatch(1);
    Future<String> waited = threads.submit(() -> {
      waiting.countDown();
      return waiter.await(reply, TimeUnit.SECONDS.toNanos(30));
    });
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();

    reply.complete("ack");

    assertThat(waited.get(10, TimeUnit.SECONDS)).isEqualTo("ack");
  }

  @Test
  void await_failed_throwsExecutionExceptionWithTheCause() {
    CompletableFuture<String> reply = new CompletableFuture<>();
    IllegalStateException cause = new IllegalStateException("connection closed");
    threads.submit(() -> reply.completeExceptionally(cause));

    assertThatThrownBy(() -> waiter.await(reply, TimeUnit.SECONDS.toNanos(30)))
        .isInstanceOf(ExecutionException.class).hasCause(cause);
  }

  @Test
  void await_doneOrNoTimeLeft_answersAtOnce() throws Exception {
    assertThat(waiter.await(CompletableFuture.completedFuture("done"), 0)).isEqualTo("done");
    assertThatThrownBy(() -> waiter.await(new CompletableFuture<>(), 0)).isInstanceOf(TimeoutException.class);
  }

  @Test
  void await_interrupted_throwsInterruptedException() throws Exception {
    CompletableFuture<String> never = new CompletableFuture<>();
    CountDownLatch waiting = new CountDownLatch(1);
    Future<Throwable> waited = threads.submit(() -> {
      waiting.countDown();
      try {
        waiter.await(never, TimeUnit.SECONDS.toNanos(30));
        return null;
      } catch (Throwable t) {
        return t;
      }
    });
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();

    threads.shutdownNow(); // interrupts the waiting thread

    assertThat(waited.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  /**
   * The sweeper's plan: a thread with a long timeout makes the sweeper sleep until its deadline or its longest sleep;
   * short timeouts that come after wake it sooner. This checks that they end (with a timeout), not how soon.
   */
  @Test
  void await_shortTimeoutAfterALongOne_timesOutWithoutWaitingForTheLongOne() throws Exception {
    CompletableFuture<String> longWait = new CompletableFuture<>();
    CountDownLatch longWaiting = new CountDownLatch(1);
    threads.submit(() -> {
      longWaiting.countDown();
      return waiter.await(longWait, TimeUnit.MINUTES.toNanos(10));
    });
    assertThat(longWaiting.await(10, TimeUnit.SECONDS)).isTrue();

    List<Future<Throwable>> shortWaits = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      shortWaits.add(threads.submit(() -> {
        try {
          waiter.await(new CompletableFuture<>(), 20 * MILLIS);
          return null;
        } catch (Throwable t) {
          return t;
        }
      }));
    }

    for (Future<Throwable> shortWait : shortWaits) {
      assertThat(shortWait.get(10, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
    }
    longWait.complete("done");
  }
}
