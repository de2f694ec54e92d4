package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.CodecLimits;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Failures around one flush: an unserializable attribute, a hung buddy, throttled state transfer. */
class ReplicationEngineFailureTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ReplicationConfig.Builder config() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1));
  }

  @Test
  void oversizedAttribute_isNotReplicable_isReportedNamingIt_andTheRestReplicates() throws Exception {
    cluster = new EngineCluster(config().codecLimits(new CodecLimits(1024, 100, 1000)).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");

    FlushOutcome outcome = owner.request("s1", (s, reads) -> {
      s.setAttribute("small", "ok");
      s.setAttribute("huge", new byte[4096]);
    });

    assertThat(outcome).isEqualTo(FlushOutcome.NOT_REPLICABLE);
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("small", "ok"));
    assertThat(owner.listener.notReplicable).first().asString()
        .startsWith("s1/huge: ").contains("[B").contains("over maxValueSize of 1024 bytes");
  }

  @Test
  void hungBuddy_syncRequestIsUnconfirmedAfterTheSettleTimeout_andTheSessionIsResentWhenItRecovers() throws Exception {
    cluster = new EngineCluster(config().settleTimeout(Duration.ofMillis(300)).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    cluster.network.hang(new NodeId("n2"));

    FlushOutcome outcome = owner.request("s1", (s, reads) -> s.setAttribute("a", 2));

    assertThat(outcome).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(owner.engine.stats().ackTimeouts()).isGreaterThanOrEqualTo(1);
    assertThat(owner.engine.stats().unconfirmedWrites()).isEqualTo(1);
    assertThat(owner.engine.sessionsWithoutBackup()).isEqualTo(1);
    cluster.network.resume(new NodeId("n2"));
    await().atMost(AWAIT).untilAsserted(() -> {
      owner.engine.runMaintenance();
      assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 2));
      assertThat(owner.engine.sessionsWithoutBackup()).isZero();
    });
  }

  @Test
  void stateTransfer_isPacedByTheConfiguredRate() throws Exception {
    cluster = new EngineCluster(
        config().stateTransferBytesPerSecond(10 * 1024).stateTransferBatchBytes(4 * 1024).build(), "n1", "n2", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    for (int i = 0; i < 40; i++) {
      owner.create("s" + i);
      owner.request("s" + i, (s, reads) -> s.setAttribute("payload", "x".repeat(1000)));
    }
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);

    cluster.crash("n2");
    await().atMost(AWAIT).until(() -> owner.engine.buddy().map(new NodeId("n3")::equals).orElse(false));

    // ~40 KiB to move at 10 KiB/s with an 8 KiB burst: the manual clock has not moved, so only the burst goes out.
    await().atMost(AWAIT).until(() -> owner.engine.stats().stateTransferBytes() > 0);
    long movedWithoutTime = owner.engine.stats().stateTransferBytes();
    assertThat(movedWithoutTime).isLessThan(20 * 1024);
    assertThat(owner.engine.sessionsWithoutBackup()).isPositive();

    for (int second = 0; second < 10 && owner.engine.sessionsWithoutBackup() > 0; second++) {
      cluster.clock.advance(Duration.ofSeconds(1));
      await().atMost(AWAIT).until(() -> owner.engine.stats().stateTransferBytes() > movedWithoutTime);
    }
    await().atMost(AWAIT).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    assertThat(owner.engine.lastReprotectionTime()).hasValueSatisfying(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofSeconds(2)));
  }

  @Test
  void buddyPromotesItsBackup_theFormerOwnerIsFencedAsSoonAsTheNewOwnerReplicatesBack() throws Exception {
    cluster = new EngineCluster(config().build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));

    // The load balancer sends the user to n2, which takes the session over from its backup (epoch 2) and, n1 being
    // its buddy, replicates it there.
    EngineCluster.Node taker = cluster.node("n2");
    assertThat(taker.engine.promote("s1")).isPresent();
    taker.engine.runMaintenance();

    await().atMost(AWAIT).untilAsserted(() -> {
      assertThat(owner.listener.fenced).containsExactly("s1");
      assertThat(owner.engine.owns("s1")).isFalse();
      assertThat(owner.engine.backupOf("s1").map(b -> b.epoch())).contains(2L);
    });
  }
}
