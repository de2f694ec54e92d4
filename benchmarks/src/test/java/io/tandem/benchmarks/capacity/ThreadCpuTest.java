package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Per-group figures from two real samples of a node: the captured one, and the same node a window later. */
class ThreadCpuTest {

  private static final int EXEC_1 = 14591;
  private static final int EXEC_2 = 14592;
  private static final int POLLER = 14601;
  private static final int SELECTOR = 13894;
  private static final int PROBE = 14717;

  /** The captured node with {@code user}, {@code system} ticks and switches added to thread {@code tid}. */
  private static void work(Map<Integer, ThreadSample> threads, int tid, long user, long system, long voluntary,
      long involuntary) {
    ThreadSample t = threads.get(tid);
    threads.put(tid, new ThreadSample(tid, t.comm(), t.startTicks(), t.userTicks() + user, t.systemTicks() + system,
        t.voluntarySwitches() + voluntary, t.involuntarySwitches() + involuntary));
  }

  private static Map<Integer, ThreadSample> later() {
    Map<Integer, ThreadSample> close = new HashMap<>(ThreadSampleFixture.threads());
    work(close, EXEC_1, 30, 10, 400, 20);
    work(close, EXEC_2, 50, 30, 600, 30);
    work(close, POLLER, 4, 6, 200, 0);
    work(close, SELECTOR, 5, 15, 300, 10);
    close.remove(PROBE); // ended in the window
    close.put(20001, new ThreadSample(20001, "http-nio-22156-", 2_200_000, 2, 1, 7, 0)); // started in it
    return close;
  }

  @Test
  void of_namedByTheDump_dividesEachGroupByTheRequests() {
    Map<Integer, ThreadSample> open = ThreadSampleFixture.threads();
    Map<Integer, String> names = new HashMap<>(ThreadNames.parse(ThreadSampleFixture.dump()));
    names.put(20001, "http-nio-22156-exec-53");

    ThreadCpu cpu = ThreadCpu.of(List.of(open), List.of(later()), List.of(names), 1_000);

    assertThat(cpu.namesFrom()).isEqualTo(ThreadCpu.FROM_DUMP);
    assertThat(cpu.threadsEnded()).isEqualTo(1);
    ThreadCpu.GroupCpu requests = cpu.group(ThreadGroups.REQUEST_THREADS);
    // exec-1, exec-2, exec-12 and the new exec-53: 82 user and 41 system ticks of 10 ms over 1,000 requests.
    assertThat(requests.threads()).isEqualTo(4);
    assertThat(requests.userMicrosPerRequest()).isCloseTo(820, within(1e-9));
    assertThat(requests.systemMicrosPerRequest()).isCloseTo(410, within(1e-9));
    assertThat(requests.cpuMicrosPerRequest()).isCloseTo(1_230, within(1e-9));
    assertThat(requests.voluntarySwitchesPerRequest()).isCloseTo(1.007, within(1e-9));
    assertThat(requests.involuntarySwitchesPerRequest()).isCloseTo(0.05, within(1e-9));
    assertThat(cpu.group(ThreadGroups.POLLER).threads()).as("the poller and the acceptor").isEqualTo(2);
    assertThat(cpu.group(ThreadGroups.POLLER).cpuMicrosPerRequest()).isCloseTo(100, within(1e-9));
    ThreadCpu.GroupCpu transport = cpu.group(ThreadGroups.TANDEM_TRANSPORT);
    assertThat(transport.threads()).as("two selectors and the timer; the probe ended").isEqualTo(3);
    assertThat(transport.systemMicrosPerRequest()).isCloseTo(150, within(1e-9));
    assertThat(cpu.group(ThreadGroups.JIT).cpuMicrosPerRequest()).isZero();
    assertThat(cpu.groups()).extracting(ThreadCpu.GroupCpu::group).containsExactly(ThreadGroups.REQUEST_THREADS,
        ThreadGroups.POLLER, ThreadGroups.TANDEM_TRANSPORT, ThreadGroups.TANDEM_ENGINE, ThreadGroups.HAZELCAST,
        ThreadGroups.TRIBES, ThreadGroups.JIT, ThreadGroups.GC_VM, ThreadGroups.OTHER);
    assertThat(cpu.all().threads()).isEqualTo(26);
    assertThat(cpu.all().cpuMicrosPerRequest()).isCloseTo(1_230 + 100 + 200, within(1e-9));
    assertThat(cpu.all().voluntarySwitchesPerRequest()).isCloseTo(1.507, within(1e-9));
  }

  @Test
  void of_withoutADump_groupsByKernelNamesAndSaysSo() {
    ThreadCpu cpu = ThreadCpu.of(List.of(ThreadSampleFixture.threads()), List.of(later()), List.of(Map.of()), 1_000);

    assertThat(cpu.namesFrom()).isEqualTo(ThreadCpu.FROM_COMM);
    assertThat(cpu.group(ThreadGroups.POLLER)).as("cut names cannot tell the poller apart").isNull();
    assertThat(cpu.group(ThreadGroups.REQUEST_THREADS).threads()).isEqualTo(6);
    assertThat(cpu.group(ThreadGroups.REQUEST_THREADS).cpuMicrosPerRequest()).isCloseTo(1_330, within(1e-9));
  }

  @Test
  void of_twoNodes_addsThem() {
    Map<Integer, String> names = ThreadNames.parse(ThreadSampleFixture.dump());
    ThreadCpu one = ThreadCpu.of(List.of(ThreadSampleFixture.threads()), List.of(later()), List.of(names), 1_000);
    ThreadCpu two = ThreadCpu.of(List.of(ThreadSampleFixture.threads(), ThreadSampleFixture.threads()),
        List.of(later(), later()), List.of(names, names), 1_000);

    assertThat(two.all().threads()).isEqualTo(2 * one.all().threads());
    assertThat(two.all().cpuMicrosPerRequest()).isCloseTo(2 * one.all().cpuMicrosPerRequest(), within(1e-9));
    assertThat(two.threadsEnded()).isEqualTo(2);
  }

  @Test
  void of_noRequestOrNoThreads_isNothing() {
    Map<Integer, ThreadSample> open = ThreadSampleFixture.threads();

    assertThat(ThreadCpu.of(List.of(open), List.of(later()), List.of(Map.of()), 0)).isNull();
    assertThat(ThreadCpu.of(List.of(Map.of()), List.of(Map.of()), List.of(Map.of()), 100)).isNull();
  }
}
