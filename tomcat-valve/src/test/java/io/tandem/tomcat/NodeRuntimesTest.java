package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The registry of a JVM's node runtimes: shared by contexts that agree, refused to those that do not, counted. */
class NodeRuntimesTest {
  private final List<FakeRuntime> started = new ArrayList<>();
  private final NodeRuntimes<FakeRuntime> runtimes = new NodeRuntimes<>(settings -> {
    FakeRuntime runtime = new FakeRuntime();
    started.add(runtime);
    return runtime;
  });

  @Test
  void acquire_twoContextsWithTheSameSettings_shareOneRuntime_andTheLastOneOutClosesIt() throws Exception {
    NodeRuntimes<FakeRuntime>.Lease a = runtimes.acquire("/a", settings(Map.of()));
    NodeRuntimes<FakeRuntime>.Lease b = runtimes.acquire("/b", settings(Map.of()));

    assertThat(started).hasSize(1);
    assertThat(a.runtime()).isSameAs(b.runtime());
    assertThat(a.first("/a")).isTrue();
    assertThat(b.first("/b")).isFalse();
    assertThat(runtimes.users("c/n1")).isEqualTo(2);

    a.close();
    a.close(); // once only
    assertThat(runtimes.users("c/n1")).isEqualTo(1);
    assertThat(started.get(0).closes.get()).isZero();

    b.close();
    assertThat(started.get(0).closes.get()).isEqualTo(1);
    assertThat(runtimes.running()).isEmpty();
  }

  @Test
  void acquire_otherSettingsForARunningCluster_isRefused_namingEachAttributeAndBothValues_secretsMasked() throws Exception {
    runtimes.acquire("/a", settings(Map.of()));

    assertThatThrownBy(() -> runtimes.acquire("/b", settings(Map.of("transportPort", "4200", "handshakeTimeout", "9s",
        "sharedSecret", "another-secret-long-enough", "members", "127.0.0.1:5701,127.0.0.1:5702"))))
        .isInstanceOfSatisfying(ClusterSettingsMismatchException.class, e -> {
          assertThat(e.getMessage())
              .contains("Context [/b] names cluster [c] as node [n1], which this node already runs for context [/a]")
              .doesNotContain("another-secret-long-enough").doesNotContain("a-shared-secret-long-enough");
          assertThat(e.differences()).containsExactly(
              "transportPort: '4200' here, '4100' in the running runtime",
              "discovery: 'members=[127.0.0.1:5701, 127.0.0.1:5702]' here, 'members=[127.0.0.1:5701]' in the running runtime",
              "sharedSecret: differs from the running runtime's (values masked)",
              "handshakeTimeout: '9s' here, '" + io.tandem.core.config.Units.format(
                  io.tandem.transport.grizzly.GrizzlyTransportConfig.DEFAULT_HANDSHAKE_TIMEOUT) + "' in the running runtime");
        });
    assertThat(runtimes.users("c/n1")).as("the refused context counts for nothing").isEqualTo(1);
  }

  @Test
  void acquire_anotherClusterOnAPortARuntimeListensOn_isRefusedNamingTheRuntime() throws Exception {
    runtimes.acquire("/a", settings(Map.of()));

    assertThatThrownBy(() -> runtimes.acquire("/b", settings(Map.of("clusterName", "other"))))
        .isInstanceOf(ClusterSettingsMismatchException.class)
        .hasMessageContaining("port 4100 is used by the runtime of cluster/node [c/n1] (started by context [/a])")
        .hasMessageContaining("port 5701 is used by the runtime of cluster/node [c/n1]");
  }

  @Test
  void acquire_anotherNodeOnTheSamePortsOfAnotherAddress_startsItsOwnRuntime() throws Exception {
    runtimes.acquire("/", settings(Map.of("bindAddress", "127.0.0.1")));

    runtimes.acquire("/", settings(Map.of("bindAddress", "127.0.0.2", "nodeId", "n2")));

    assertThat(started).hasSize(2);
    assertThat(runtimes.running()).containsExactlyInAnyOrder("c/n1", "c/n2");
    assertThatThrownBy(() -> runtimes.acquire("/", settings(Map.of("bindAddress", "0.0.0.0", "nodeId", "n3"))))
        .as("a wildcard takes every address").isInstanceOf(ClusterSettingsMismatchException.class);
  }

  @Test
  void acquire_whenTheRuntimeFailsToStart_leavesNothingRegistered_andTheNextContextTriesAgain() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    NodeRuntimes<FakeRuntime> failingOnce = new NodeRuntimes<>(settings -> {
      if (attempts.incrementAndGet() == 1) {
        throw new java.net.BindException("Address already in use");
      }
      return new FakeRuntime();
    });

    assertThatThrownBy(() -> failingOnce.acquire("/a", settings(Map.of()))).isInstanceOf(java.net.BindException.class);
    assertThat(failingOnce.running()).isEmpty();
    assertThat(failingOnce.acquire("/b", settings(Map.of())).runtime()).isNotNull();
  }

  @Test
  void acquire_whileTheLastRuntimeOfTheClusterStillCloses_startsOnlyOnceItClosed() throws Exception {
    CountDownLatch closing = new CountDownLatch(1);
    CountDownLatch mayClose = new CountDownLatch(1);
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    NodeRuntimes<FakeRuntime> slowToClose = new NodeRuntimes<>(settings -> {
      events.add("start");
      return new FakeRuntime() {
        @Override
        public void close() {
          closing.countDown();
          await(mayClose);
          events.add("closed");
        }
      };
    });
    NodeRuntimes<FakeRuntime>.Lease first = slowToClose.acquire("/a", settings(Map.of()));
    CompletableFuture<Void> released = CompletableFuture.runAsync(first::close);
    assertThat(closing.await(5, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<NodeRuntimes<FakeRuntime>.Lease> reloaded = CompletableFuture.supplyAsync(() -> {
      try {
        return slowToClose.acquire("/a", settings(Map.of()));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(Duration.ofMillis(200).toMillis()); // time for a start that would not wait
    assertThat(events).containsExactly("start");
    mayClose.countDown();

    assertThat(reloaded.get(5, TimeUnit.SECONDS).runtime()).isNotNull();
    released.get(5, TimeUnit.SECONDS);
    assertThat(events).containsExactly("start", "closed", "start");
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static RuntimeSettings settings(Map<String, String> overrides) {
    Map<String, String> attributes = new HashMap<>();
    attributes.put("clusterName", "c");
    attributes.put("transportPort", "4100");
    attributes.put("membershipPort", "5701");
    attributes.put("members", "127.0.0.1:5701");
    attributes.put("sharedSecret", "a-shared-secret-long-enough");
    attributes.putAll(overrides);
    List<String> violations = new ArrayList<>();
    ClusterSettings cluster = ClusterSettings.parse(attributes, "n1", violations);
    assertThat(violations).isEmpty();
    return new RuntimeSettings(cluster, 1 << 20, Map.of(), null, Duration.ofSeconds(1));
  }

  private static class FakeRuntime implements AutoCloseable {
    final AtomicInteger closes = new AtomicInteger();

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }
}
