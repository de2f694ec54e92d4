package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The counters of a real process, this test's JVM: two threads named as Tomcat names its request thread and its poller
 * work between two readings of {@code /proc/self}, and the delta sees their CPU and their wake-ups in their groups.
 */
class ProcThreadsTest {

  private static final long BURN_NANOS = 300_000_000L;
  private static final int SLEEPS = 200;

  /** A thread that waits for {@code go}, burns CPU and blocks {@code SLEEPS} times, then stays alive until {@code end}. */
  private static Thread worker(String name, CountDownLatch ready, CountDownLatch go, CountDownLatch done,
      CountDownLatch end) {
    Thread thread = new Thread(() -> {
      ThreadMXBean mx = ManagementFactory.getThreadMXBean();
      try {
        ready.countDown();
        go.await();
        long start = mx.getCurrentThreadCpuTime();
        long x = 0;
        while (mx.getCurrentThreadCpuTime() - start < BURN_NANOS) {
          x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        for (int i = 0; i < SLEEPS; i++) {
          Thread.sleep(1);
        }
        done.countDown();
        end.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name);
    thread.setDaemon(true);
    return thread;
  }

  @Test
  void of_threadsWorkingBetweenTwoReadings_theirGroupsSeeTheCpuAndTheWakeUps() throws Exception {
    long pid = ProcessHandle.current().pid();
    CountDownLatch ready = new CountDownLatch(2);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(2);
    CountDownLatch end = new CountDownLatch(1);
    List<Thread> workers = List.of(worker("http-nio-8080-exec-1", ready, go, done, end),
        worker("http-nio-8080-Poller", ready, go, done, end));
    workers.forEach(Thread::start);
    try {
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      Map<Integer, ThreadSample> open = ProcThreads.of(pid);
      go.countDown();
      assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
      Map<Integer, ThreadSample> close = ProcThreads.of(pid);
      Map<Integer, String> names = ThreadNames.of(pid);

      assertThat(names).as("jcmd named this JVM's threads").containsValue("http-nio-8080-exec-1");
      ThreadCpu cpu = ThreadCpu.of(List.of(open), List.of(close), List.of(names), 1);
      assertThat(cpu.namesFrom()).isEqualTo(ThreadCpu.FROM_DUMP);
      for (String group : List.of(ThreadGroups.REQUEST_THREADS, ThreadGroups.POLLER)) {
        ThreadCpu.GroupCpu worked = cpu.group(group);
        assertThat(worked.threads()).as(group).isEqualTo(1);
        // 300 ms burnt, in 10 ms ticks; a tick may be lost at each end.
        assertThat(worked.cpuMicrosPerRequest()).as(group).isGreaterThanOrEqualTo(250_000);
        assertThat(worked.voluntarySwitchesPerRequest()).as(group + ": each sleep is a wake-up").isGreaterThanOrEqualTo(SLEEPS);
      }
      assertThat(cpu.all().cpuMicrosPerRequest()).isGreaterThanOrEqualTo(500_000);
    } finally {
      end.countDown();
      for (Thread worker : workers) {
        worker.join(10_000);
      }
    }
  }

  @Test
  void of_aProcessThatIsGone_isEmpty() throws Exception {
    Process child = new ProcessBuilder("true").start();
    child.waitFor();

    assertThat(ProcThreads.of(child.pid())).isEmpty();
    assertThat(ThreadNames.of(child.pid())).isEmpty();
  }
}
