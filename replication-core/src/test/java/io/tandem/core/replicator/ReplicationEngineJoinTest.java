package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A member joins between an owner and its buddy: the new member becomes the buddy, the old one lets go. */
class ReplicationEngineJoinTest {
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void join_movesBackupsToTheNewBuddy_andTheFormerBuddyReleasesThemOnlyAfterwards() throws Exception {
    cluster = new EngineCluster(
        ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    for (int i = 0; i < 10; i++) {
      owner.create("s" + i);
      int value = i;
      owner.request("s" + i, (s, reads) -> s.setAttribute("v", value));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("n3").engine.stats().backupSessions() == 10);

    EngineCluster.Node joiner = cluster.start("n2");

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(owner.engine.buddy()).contains(new NodeId("n2"));
      assertThat(owner.engine.sessionsWithoutBackup()).isZero();
      assertThat(joiner.engine.stats().backupSessions()).isEqualTo(10);
    });
    assertThat(joiner.backup("s7")).contains(Map.of("v", 7));
    assertThat(cluster.node("n3").engine.stats().backupSessions()).as("released only by the tick").isEqualTo(10);

    owner.engine.runMaintenance();

    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node("n3").engine.stats().backupSessions() == 0);
  }
}
