package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadNamesTest {

  @Test
  void parse_realDump_namesEveryThreadByItsKernelId() {
    Map<Integer, String> names = ThreadNames.parse(ThreadSampleFixture.dump());

    assertThat(names).hasSize(25)
        .containsEntry(0x3064, "main")
        .containsEntry(0x3081, "VM Thread")
        .containsEntry(14591, "http-nio-22156-exec-1")
        .containsEntry(14601, "http-nio-22156-Poller")
        .containsEntry(13894, "grizzly-nio-kernel(1) SelectorRunner");
    assertThat(ThreadSampleFixture.threads().keySet()).as("every dumped thread is in the /proc sample")
        .containsAll(names.keySet());
  }

  @Test
  void parse_nameWithQuotesAndTheStackLines_takesTheWholeNameAndSkipsTheRest() {
    String dump = "Full thread dump OpenJDK 64-Bit Server VM:\n\n"
        + "\"say \"hi\" nid=0x1\" #20 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=2.00s tid=0x00007f nid=0x2a runnable\n"
        + "   java.lang.Thread.State: RUNNABLE\n"
        + "\tat java.lang.Thread.sleep(java.base@17/Native Method)\n"
        + "JNI global refs: 7, weak refs: 0\n";

    assertThat(ThreadNames.parse(dump)).containsExactly(Map.entry(42, "say \"hi\" nid=0x1"));
  }
}
