package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadSampleTest {

  @Test
  void parse_realLines_readsTimesSwitchesAndStart() {
    Map<Integer, ThreadSample> threads = ThreadSampleFixture.threads();

    assertThat(threads).hasSize(26);
    assertThat(threads.get(12388)).isEqualTo(new ThreadSample(12388, "java", 2119436, 236, 162, 243, 5936));
    assertThat(threads.get(14592)).isEqualTo(new ThreadSample(14592, "http-nio-22156-", 2122460, 58, 4, 149, 1012));
    assertThat(threads.get(13894).comm()).isEqualTo("grizzly-nio-ker");
    assertThat(threads.get(12417).comm()).as("a name with a space").isEqualTo("VM Thread");
  }

  @Test
  void parse_nameWithSpacesAndParentheses_readsTheFieldsAfterTheLastParenthesis() {
    String real = ThreadSampleFixture.resource("proc-tasks.txt").lines()
        .filter(line -> line.startsWith("14592 ")).findFirst().orElseThrow();
    String odd = real.replace("(http-nio-22156-)", "(a) (b c) d)");

    ThreadSample sample = ThreadSample.parse(14592, odd, "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t2\n");

    assertThat(sample).isEqualTo(new ThreadSample(14592, "a) (b c) d", 2122460, 58, 4, 1, 2));
  }

  @Test
  void parse_statusWithoutSwitches_refused() {
    String real = ThreadSampleFixture.resource("proc-tasks.txt").lines().findFirst().orElseThrow();

    assertThatThrownBy(() -> ThreadSample.parse(12382, real, "Name:\tjava\n"))
        .hasMessageContaining("voluntary_ctxt_switches");
  }

  @Test
  void since_sameThread_isTheDifference() {
    ThreadSample earlier = new ThreadSample(7, "t", 100, 10, 5, 40, 3);
    ThreadSample later = new ThreadSample(7, "t", 100, 25, 9, 70, 4);

    assertThat(later.since(earlier)).isEqualTo(new ThreadSample(7, "t", 100, 15, 4, 30, 1));
  }

  @Test
  void since_noEarlierOrAReusedTid_isEverythingTheThreadDid() {
    ThreadSample later = new ThreadSample(7, "t", 300, 25, 9, 70, 4);

    assertThat(later.since(null)).isEqualTo(later);
    assertThat(later.since(new ThreadSample(7, "old", 100, 10, 5, 40, 3))).isEqualTo(later);
  }
}
