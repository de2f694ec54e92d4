package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class HazelcastMembershipTest {

  @Test
  void crashedMember_leavesTheSurvivorsViewWithinFiveSeconds() throws Exception {
    String cluster = "crash-" + System.nanoTime();
    int a = ClusterNode.freePort();
    int b = ClusterNode.freePort();
    List<String> join = List.of("127.0.0.1:" + a, "127.0.0.1:" + b);
    HazelcastMembership survivor = new HazelcastMembership(HazelcastMembershipConfig.forLoopback(cluster, new NodeId("a"), "127.0.0.1:1", a, join));
    HazelcastMembership victim = new HazelcastMembership(HazelcastMembershipConfig.forLoopback(cluster, new NodeId("b"), "127.0.0.1:2", b, join));
    try {
      survivor.start();
      victim.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> survivor.currentView().contains(new NodeId("b")));

      long crashedAt = System.nanoTime();
      victim.crash();
      await().atMost(Duration.ofSeconds(30)).until(() -> !survivor.currentView().contains(new NodeId("b")));
      Duration detection = Duration.ofNanos(System.nanoTime() - crashedAt);

      assertThat(detection).isLessThan(Duration.ofSeconds(5));
    } finally {
      victim.close();
      survivor.close();
    }
  }

  @Test
  void invalidConfiguration_namesEveryBadField() {
    assertThatThrownBy(() -> new HazelcastMembershipConfig(" ", new NodeId("a"), "", "127.0.0.1", 0, List.of("nohostport"),
        Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clusterName")
        .hasMessageContaining("transportAddress")
        .hasMessageContaining("port: 0")
        .hasMessageContaining("joinMembers: 'nohostport'")
        .hasMessageContaining("maxNoHeartbeat");
  }
}
