package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The grouping rules over the names real nodes give their threads (the captured sample), whole and cut by the kernel. */
class ThreadGroupsTest {

  @Test
  void of_javaNamesFromTheDump_eachThreadInItsPartOfTheNode() {
    Map<String, String> groups = new TreeMap<>();
    ThreadNames.parse(ThreadSampleFixture.dump()).values().forEach(name -> groups.put(name, ThreadGroups.of(name)));

    assertThat(groups).containsAllEntriesOf(Map.ofEntries(
        Map.entry("http-nio-22156-exec-1", ThreadGroups.REQUEST_THREADS),
        Map.entry("http-nio-22156-exec-12", ThreadGroups.REQUEST_THREADS),
        Map.entry("http-nio-22156-Poller", ThreadGroups.POLLER),
        Map.entry("http-nio-22156-Acceptor", ThreadGroups.POLLER),
        Map.entry("grizzly-nio-kernel(1) SelectorRunner", ThreadGroups.TANDEM_TRANSPORT),
        Map.entry("tandem-transport-timer-n1", ThreadGroups.TANDEM_TRANSPORT),
        Map.entry("tandem-transport-probe-n1-1", ThreadGroups.TANDEM_TRANSPORT),
        Map.entry("tandem-maintenance-n1", ThreadGroups.TANDEM_ENGINE),
        Map.entry("tandem-pause-watch-n1", ThreadGroups.TANDEM_ENGINE),
        Map.entry("tandem-membership-n1", ThreadGroups.HAZELCAST),
        Map.entry("tandem-auth-membership-n1", ThreadGroups.HAZELCAST),
        Map.entry("hz.tandem-n1-bench.IO.thread-in-0", ThreadGroups.HAZELCAST),
        Map.entry("Tribes-Task-Receiver[Catalina-Channel]-1", ThreadGroups.TRIBES),
        Map.entry("NioReceiver[Catalina-Channel]", ThreadGroups.TRIBES),
        Map.entry("MessageDispatchInterceptor.MessageDispatchThread[Catalina-Channel]1", ThreadGroups.TRIBES),
        Map.entry("C2 CompilerThread0", ThreadGroups.JIT),
        Map.entry("C1 CompilerThread0", ThreadGroups.JIT),
        Map.entry("Sweeper thread", ThreadGroups.JIT),
        Map.entry("VM Thread", ThreadGroups.GC_VM),
        Map.entry("Reference Handler", ThreadGroups.GC_VM),
        Map.entry("main", ThreadGroups.OTHER),
        Map.entry("Catalina-utility-1", ThreadGroups.OTHER)));
    assertThat(groups).hasSize(25);
  }

  @Test
  void of_kernelNamesCutTo15Characters_keepTheirGroupExceptThePollerWhichCountsAsRequestThreads() {
    Map<String, String> groups = new TreeMap<>();
    ThreadSampleFixture.threads().values().forEach(t -> groups.put(t.comm(), ThreadGroups.of(t.comm())));

    assertThat(groups).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
        Map.entry("java", ThreadGroups.OTHER),
        Map.entry("VM Thread", ThreadGroups.GC_VM),
        Map.entry("C2 CompilerThre", ThreadGroups.JIT),
        Map.entry("C1 CompilerThre", ThreadGroups.JIT),
        Map.entry("Sweeper thread", ThreadGroups.JIT),
        Map.entry("Reference Handl", ThreadGroups.GC_VM),
        Map.entry("grizzly-nio-ker", ThreadGroups.TANDEM_TRANSPORT),
        Map.entry("tandem-transpor", ThreadGroups.TANDEM_TRANSPORT),
        Map.entry("tandem-maintena", ThreadGroups.TANDEM_ENGINE),
        Map.entry("tandem-pause-wa", ThreadGroups.TANDEM_ENGINE),
        Map.entry("tandem-membersh", ThreadGroups.HAZELCAST),
        Map.entry("tandem-auth-mem", ThreadGroups.HAZELCAST),
        Map.entry("hz.tandem-n1-be", ThreadGroups.HAZELCAST),
        Map.entry("http-nio-22156-", ThreadGroups.REQUEST_THREADS),
        Map.entry("Catalina-utilit", ThreadGroups.OTHER),
        Map.entry("Tribes-Task-Rec", ThreadGroups.TRIBES),
        Map.entry("NioReceiver[Cat", ThreadGroups.TRIBES),
        Map.entry("MessageDispatch", ThreadGroups.TRIBES)));
  }

  @Test
  void of_connectorWithAnAddressOrAnotherProtocol_stillTomcats() {
    assertThat(ThreadGroups.of("http-nio-127.0.0.1-8080-exec-3")).isEqualTo(ThreadGroups.REQUEST_THREADS);
    assertThat(ThreadGroups.of("https-nio2-8443-Poller")).isEqualTo(ThreadGroups.POLLER);
    assertThat(ThreadGroups.of("ajp-nio-8009-Acceptor")).isEqualTo(ThreadGroups.POLLER);
    assertThat(ThreadGroups.of("GC Thread#1")).isEqualTo(ThreadGroups.GC_VM);
    assertThat(ThreadGroups.of("tandem-async-replies-n1")).isEqualTo(ThreadGroups.TANDEM_ENGINE);
  }
}
