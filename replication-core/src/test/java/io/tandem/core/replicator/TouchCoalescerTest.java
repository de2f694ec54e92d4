package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.wire.Message.Touch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Read-only requests' touches, coalesced per session and sent as one batch; requests add them without a lock. */
class TouchCoalescerTest {
  private final TouchCoalescer touches = new TouchCoalescer();

  @Test
  void severalTouchesOfASession_theNewestIsSent_once() {
    touches.add(new Touch("s1", 1, 200), 1_000);
    touches.add(new Touch("s1", 1, 100), 1_000); // a request that finished later but read an older time
    touches.add(new Touch("s2", 1, 150), 1_000);

    assertThat(touches.drainIfDue(1_000)).containsExactlyInAnyOrder(new Touch("s1", 1, 200), new Touch("s2", 1, 150));
    assertThat(touches.drainIfDue(Long.MAX_VALUE - 1)).isEmpty();
  }

  @Test
  void notDue_beforeTheEarliestDeadline_thenAllAtOnce() {
    touches.add(new Touch("late", 1, 1), 5_000);
    touches.add(new Touch("early", 1, 1), 2_000);

    assertThat(touches.drainIfDue(1_999)).isEmpty();
    assertThat(touches.drainIfDue(2_000)).hasSize(2);
    assertThat(touches.size()).isZero();
  }

  @Test
  void forgotten_whenAnUpdateCarriesTheAccessTime() {
    touches.add(new Touch("s1", 1, 1), 0);
    touches.forget("s1");
    touches.forget("never-touched");

    assertThat(touches.drainIfDue(Long.MAX_VALUE - 1)).isEmpty();
  }

  /**
   * Regression guard for the lock-free drain: a touch added while a drain runs must keep a deadline, or it waits for
   * the next read-only request of any session (forever, on a quiet node). Many short rounds, so that the last adds
   * of a round often race a drain.
   */
  @Test
  void addsRacingDrains_neverStrandATouch_andTheNewestOfEachSessionIsSent() throws Exception {
    int writers = 3;
    int perWriter = 40;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    try {
      for (int round = 0; round < 1_000; round++) {
        TouchCoalescer coalescer = new TouchCoalescer();
        Map<String, Long> newestSent = new ConcurrentHashMap<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        CountDownLatch go = new CountDownLatch(1);
        Future<?> drainer = pool.submit(() -> {
          go.await();
          while (writing.get()) {
            record(coalescer.drainIfDue(Long.MAX_VALUE - 1), newestSent);
          }
          return null;
        });
        List<Future<?>> adds = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          int writer = w;
          adds.add(pool.submit(() -> {
            go.await();
            for (int i = 1; i <= perWriter; i++) {
              coalescer.add(new Touch("s" + writer + "-" + i % 7, 1, i), 1_000 + i % 13);
            }
            return null;
          }));
        }
        go.countDown();
        for (Future<?> add : adds) {
          add.get(60, TimeUnit.SECONDS);
        }
        writing.set(false);
        drainer.get(60, TimeUnit.SECONDS);
        // What is still pending must be due by the latest deadline any add set.
        record(coalescer.drainIfDue(1_000 + 12), newestSent);

        assertThat(coalescer.size()).as("round " + round + ": left without a deadline").isZero();
        for (int w = 0; w < writers; w++) {
          for (int k = 0; k < 7; k++) {
            long newest = perWriter - Math.floorMod(perWriter - k, 7);
            assertThat(newestSent).as("round " + round).containsEntry("s" + w + "-" + k, newest);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void record(List<Touch> drained, Map<String, Long> newestSent) {
    for (Touch touch : drained) {
      newestSent.merge(touch.sessionId(), touch.lastAccessedTime(), Math::max);
    }
  }
}
