package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.replicator.FlushOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three engines over real Grizzly sockets with real Hazelcast membership, in one JVM. One node stops hard; the
 * survivors adopt its sessions and re-protect theirs until every session has two copies again.
 */
class ThreeNodeClusterIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final List<ClusterNode> nodes = new ArrayList<>();

  @AfterEach
  void close() {
    nodes.forEach(ClusterNode::close);
  }

  @Test
  void hardStopOfOneNode_everySessionHasTwoCopiesAgain() throws Exception {
    String cluster = "it-" + System.nanoTime();
    int[] hz = {ClusterNode.freePort(), ClusterNode.freePort(), ClusterNode.freePort()};
    List<String> join = List.of("127.0.0.1:" + hz[0], "127.0.0.1:" + hz[1], "127.0.0.1:" + hz[2]);
    for (int i = 0; i < 3; i++) {
      ClusterNode node = new ClusterNode(cluster, "n" + (i + 1), ClusterNode.freePort(), hz[i], join, ClusterNode.config());
      nodes.add(node);
    }
    for (ClusterNode node : nodes) {
      node.start();
    }
    await().atMost(WAIT).until(() -> nodes.stream().allMatch(n -> n.engine.buddy().isPresent()
        && n.membership.currentView().members().size() == 3));

    // n1 -> n2 -> n3 -> n1: every node owns ten sessions, each backed up by its buddy.
    for (ClusterNode node : nodes) {
      for (int s = 0; s < 10; s++) {
        String id = node.id.value() + "-s" + s;
        assertThat(node.set(id, "user", "u" + s)).isEqualTo(FlushOutcome.REPLICATED);
        assertThat(node.set(id, "step", "2")).isEqualTo(FlushOutcome.REPLICATED);
      }
    }
    assertThat(nodes.get(1).backup("n1-s3")).contains(Map.of("user", "u3", "step", "2"));
    assertThat(nodes.get(2).backup("n2-s3")).contains(Map.of("user", "u3", "step", "2"));

    ClusterNode victim = nodes.get(1);
    victim.crash();
    nodes.remove(victim);
    ClusterNode n1 = nodes.get(0);
    ClusterNode n3 = nodes.get(1);

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(n1.engine.buddy().map(b -> b.value())).contains("n3");
      assertThat(n3.engine.buddy().map(b -> b.value())).contains("n1");
      assertThat(n1.stats().sessionsWithoutBackup()).isZero();
      assertThat(n3.stats().sessionsWithoutBackup()).isZero();
      assertThat(n3.stats().ownedSessions()).isEqualTo(20);
    });
    for (int s = 0; s < 10; s++) {
      // n1's sessions, formerly backed up on the dead n2, now on n3.
      assertThat(n3.backup("n1-s" + s)).contains(Map.of("user", "u" + s, "step", "2"));
      // n2's sessions: adopted by n3 (its buddy) and backed up on n1.
      assertThat(n3.owns("n2-s" + s)).isTrue();
      assertThat(n1.backup("n2-s" + s)).contains(Map.of("user", "u" + s, "step", "2"));
      // n3's own sessions, formerly on n1, still there.
      assertThat(n1.backup("n3-s" + s)).contains(Map.of("user", "u" + s, "step", "2"));
    }
    assertThat(n1.stats().lastReprotection()).isPresent();
  }
}
