package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 94817 (docs/protocol.md 11.3.28): n1's buddy n2 was paused holding a copy of s; n1 re-protected s on n3,
 * and the user logged in five times in a row before n2 came back, more ids than the session remembers it gave up.
 * n2, the buddy again, was told that the last four ended, not the first: its copy under the pre-login id stayed, and
 * was adopted and served under that abandoned id when n1 stopped. A release pending at a former buddy remembers the
 * ids its copy may be under.
 */
class FormerBuddyAwayDuringManyLoginsTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void formerBuddyBackAfterMoreLoginsThanTheSessionRemembers_isToldThePreLoginIdEnded() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.engine.backupOf("s")).as("n1's buddy is n2").isPresent();

    cluster.cluster.suspend(new NodeId("n2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("n3").engine.backupOf("s").isPresent());
    String id = "s";
    for (int login = 1; login <= 5; login++) {
      String next = "s-login" + login;
      assertThat(n1.engine.changeId(id, next)).isEqualTo(FlushOutcome.REPLICATED);
      id = next;
    }

    cluster.cluster.thaw(new NodeId("n2"));
    String current = id;
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.backupOf(current).isPresent());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(n2.engine.backupOf("s")).as("n2's copy under the pre-login id").isEmpty());
  }
}
