package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Regression: with a pool sized by cores, 16 concurrent encoders on one core made a new Kryo for most calls. */
class KryoPoolTest {
  @Test
  void manyConcurrentEncoders_reuseInstances_insteadOfMakingOneForMostCalls() throws Exception {
    KryoAttributeCodec codec = new KryoAttributeCodec(ClassFilter.defaultsOnly(), CodecLimits.defaults());
    int threads = 32;
    int callsEach = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < callsEach; i++) {
            codec.encode("value-" + seed + "-" + i);
            Thread.yield(); // as a request thread is preempted between calls
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(codec.instancesCreated()).as("instances made for " + threads * callsEach + " calls on " + threads + " threads")
        .isLessThanOrEqualTo(KryoAttributeCodec.POOL_SIZE);
  }
}
