package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.CodecLimits;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.MessageCodec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code maxSessionSize}: a session whose full copy had grown past the frame (by deltas, or one large value) could not
 * be sent again after a buddy change; every later write was a 503 and its state-transfer batch failed on every tick,
 * and nothing told the application which write did it. Now the write that would make the copy too large is the one
 * that fails (NOT_REPLICABLE, a 500 in SYNC), what it set is sent as removed (no copy keeps an older value), and the
 * copy stays small enough to be re-sent.
 *
 * <p>Frames of 256KiB here, so values of 100KiB or so make the point. Ring n1 -> n2 (-> n3).
 */
class SessionSizeLimitTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final int KIB = 1024;

  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  private static ReplicationConfig.Builder config() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(2))
        .maintenanceInterval(Duration.ofMillis(100)).maxFrameSize(256 * KIB)
        .codecLimits(new CodecLimits(128 * KIB, 100, 1000)).stateTransferBatchBytes(64 * KIB);
  }

  private static byte[] bytes(int size, int fill) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  @ParameterizedTest
  @EnumSource(ReplicationScope.class)
  void valueThatMakesTheSessionTooLarge_isNotReplicable_andTheBuddyKeepsNoOlderValue(ReplicationScope scope)
      throws Exception {
    EngineCluster cluster = clusters.start(config().scope(scope).maxSessionSize(100 * KIB).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("big", bytes(60 * KIB, 1))))
        .isEqualTo(FlushOutcome.REPLICATED);

    FlushOutcome outcome = owner.request("s1", (s, reads) -> s.setAttribute("big", bytes(120 * KIB, 2)));

    assertThat(outcome).isEqualTo(FlushOutcome.NOT_REPLICABLE);
    assertThat(cluster.node("n2").backup("s1")).as("the older [big] is gone from the copy, [a] is kept")
        .hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("a").containsEntry("a", 1));
    assertThat(owner.engine.stats().sessionsTooLarge()).isEqualTo(1);
    assertThat(owner.engine.stats().attributesNotReplicable()).as("not a serialization failure").isZero();
    assertThat(owner.listener.tooLarge).singleElement().satisfies(finding -> {
      assertThat(finding.sessionId()).isEqualTo("s1");
      assertThat(finding.leftOut()).containsOnlyKeys("big");
      assertThat(finding.bytes()).isGreaterThan(120 * KIB);
      assertThat(finding.describe()).contains("session [s1] would be " + finding.bytes() + " bytes")
          .contains("over maxSessionSize of " + 100 * KIB + " bytes").contains("[big]");
    });
    assertThat(owner.sessions.get("s1").attributes()).as("the application still holds it on this node")
        .containsKey("big");
  }

  @Test
  void afterATooLargeValue_aSmallWrite_isReplicated_andTheValueLeftOutStaysOutUntilSetAgain() throws Exception {
    EngineCluster cluster = clusters.start(config().maxSessionSize(100 * KIB).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("big", bytes(120 * KIB, 2))))
        .isEqualTo(FlushOutcome.NOT_REPLICABLE);

    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("c", 3))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 1, "c", 3));

    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("big", "small now"))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", 1, "c", 3, "big", "small now"));
  }

  @Test
  void requestSettingASmallAndALargeValue_onlyTheLargeOneIsLeftOut() throws Exception {
    EngineCluster cluster = clusters.start(config().scope(ReplicationScope.MODIFIED_SESSION).maxSessionSize(100 * KIB)
        .build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", bytes(30 * KIB, 1)));

    FlushOutcome outcome = owner.request("s1", (s, reads) -> {
      s.setAttribute("small", "x");
      s.setAttribute("large", bytes(90 * KIB, 2));
    });

    assertThat(outcome).isEqualTo(FlushOutcome.NOT_REPLICABLE);
    assertThat(cluster.node("n2").backup("s1")).hasValueSatisfying(copy ->
        assertThat(copy).containsOnlyKeys("a", "small"));
  }

  @Test
  void deltasGrowingTheSessionPastTheFrame_theWriteThatWouldIsRefused_andAfterABuddyChangeTheSessionIsReprotected()
      throws Exception {
    // The case, with the default maxSessionSize (the frame less a thirty-second): before, each delta was
    // acknowledged, and after n2 died the full copy (over 256KiB) could never reach n3.
    EngineCluster cluster = clusters.start(config().build(), "n1", "n2", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a1", bytes(100 * KIB, 1)))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a2", bytes(100 * KIB, 2)))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a3", bytes(100 * KIB, 3))))
        .isEqualTo(FlushOutcome.NOT_REPLICABLE);
    assertThat(cluster.node("n2").backup("s1")).hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("a1", "a2"));

    cluster.crash("n2");

    await().atMost(AWAIT).until(() -> owner.engine.buddy().equals(java.util.Optional.of(new NodeId("n3")))
        && owner.engine.sessionsWithoutBackup() == 0);
    assertThat(cluster.node("n3").backup("s1")).hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("a1", "a2"));
    assertThat(owner.engine.stats().sendFailures()).isZero();
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("b", 4))).as("not a 503").isEqualTo(FlushOutcome.REPLICATED);
  }

  @Test
  void reprotection_smallSessionsAndLargeOnes_everyBatchFitsInAFrame_andAllAreProtected() throws Exception {
    // Batches are filled up to stateTransferBatchSize (64KiB) and were topped up with whatever session came next: 50KiB
    // of small sessions and a 220KiB one made a frame over 256KiB, refused by the buddy on every tick.
    EngineCluster cluster = clusters.start(config().build(), "n1", "n2", "n3");
    EngineCluster.Node owner = cluster.node("n1");
    for (int i = 0; i < 6; i++) {
      String small = "small-" + i;
      String large = "large-" + i;
      owner.create(small);
      owner.create(large);
      assertThat(owner.request(small, (s, reads) -> s.setAttribute("v", bytes(50 * KIB, 1)))).isEqualTo(FlushOutcome.REPLICATED);
      assertThat(owner.request(large, (s, reads) -> s.setAttribute("v", bytes(110 * KIB, 2)))).isEqualTo(FlushOutcome.REPLICATED);
      assertThat(owner.request(large, (s, reads) -> s.setAttribute("w", bytes(110 * KIB, 3)))).isEqualTo(FlushOutcome.REPLICATED);
    }

    cluster.crash("n2");

    await().atMost(AWAIT).until(() -> {
      cluster.clock.advance(Duration.ofMillis(100)); // the state transfer's rate is paced on the engine's clock
      return owner.engine.buddy().equals(java.util.Optional.of(new NodeId("n3"))) && owner.engine.sessionsWithoutBackup() == 0;
    });
    assertThat(owner.engine.stats().sendFailures()).as("no batch was refused").isZero();
    for (int i = 0; i < 6; i++) {
      assertThat(cluster.node("n3").backup("large-" + i)).hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("v", "w"));
      assertThat(cluster.node("n3").backup("small-" + i)).isPresent();
    }
  }

  @Test
  void async_valueThatMakesTheSessionTooLarge_isNotReplicable_andTheBuddyDropsTheOlderValue() throws Exception {
    EngineCluster cluster = clusters.start(config().mode(ReplicationMode.ASYNC).maxSessionSize(100 * KIB).build(),
        "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("big", bytes(60 * KIB, 1)));
    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").map(copy -> copy.containsKey("big")).orElse(false));

    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("big", bytes(120 * KIB, 2))))
        .isEqualTo(FlushOutcome.NOT_REPLICABLE);

    await().atMost(AWAIT).until(() -> cluster.node("n2").backup("s1").map(copy -> !copy.containsKey("big")).orElse(false));
    assertThat(owner.engine.stats().sessionsTooLarge()).isEqualTo(1);
  }

  @Test
  void everyCopySent_fitsWithinMaxSessionSize_asTheWireCarriesIt() throws Exception {
    EngineCluster cluster = clusters.start(config().maxSessionSize(100 * KIB).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    owner.create("s1");
    for (int i = 0; i < 8; i++) {
      int n = i;
      owner.request("s1", (s, reads) -> s.setAttribute("v" + n, bytes(20 * KIB, n)));
    }

    assertThat(MessageCodec.snapshotBytes(cluster.node("n2").engine.backupOf("s1").orElseThrow()))
        .isLessThanOrEqualTo(100 * KIB);
    assertThat(owner.engine.stats().sessionsTooLarge()).isPositive();
  }
}
