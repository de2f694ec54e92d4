package io.tandem.benchmarks.floor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class WaitHandoffTest {

  @Test
  void everyWaiterIsReleasedByTheWaker_andOneWakeUpServesThoseQueuedTogether() throws Exception {
    int threads = 16;
    int rounds = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (WaitHandoff handoff = new WaitHandoff("test-waker")) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> released = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        released.add(pool.submit(() -> {
          start.await();
          int count = 0;
          for (int i = 0; i < rounds; i++) {
            count += handoff.await() ? 1 : 0;
          }
          return count;
        }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> f : released) {
        total += f.get();
      }

      assertThat(total).as("waits released by the waker, none by the one-second bound").isEqualTo(threads * rounds);
      assertThat(handoff.wakeUps()).isPositive().isLessThanOrEqualTo(threads * rounds);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aClosedHandoffHoldsNobody() {
    WaitHandoff handoff = new WaitHandoff("test-waker");
    handoff.close();

    assertThat(handoff.await()).isFalse();
  }
}
