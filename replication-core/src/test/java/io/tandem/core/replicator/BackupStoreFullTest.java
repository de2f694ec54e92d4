package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code maxBackupBytes}: a buddy whose store is full refuses new copies and growth with {@code BACKUP_STORE_FULL}. The
 * owner counts it, answers the write 503 at once (the buddy cannot protect it; its outcome is unknown to the client),
 * keeps the session marked for a full copy, and the maintenance tick sends it again once the buddy has room. Ring n1 ->
 * n2: n2's store is bounded to 64KiB.
 */
class BackupStoreFullTest {
  private static final int KIB = 1024;

  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  private static ReplicationConfig.Builder config() {
    // A settle timeout far above the test's patience: a refusal for a full store must not wait it out.
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofSeconds(30))
        .maintenanceInterval(Duration.ofHours(1)).maxBackupBytes(64 * KIB);
  }

  private static byte[] bytes(int size, int fill) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  @Test
  void newSessionPastTheBuddysBound_isUnconfirmedAtOnce_countedOnBothSides_andSentOnceThereIsRoom() throws Exception {
    EngineCluster cluster = clusters.start(config().build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    EngineCluster.Node buddy = cluster.node("n2");
    owner.create("s1");
    owner.create("s2");
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("v", bytes(40 * KIB, 1)))).isEqualTo(FlushOutcome.REPLICATED);

    long started = System.nanoTime();
    FlushOutcome refused = owner.request("s2", (s, reads) -> s.setAttribute("v", bytes(40 * KIB, 2)));

    assertThat(refused).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("not after the settle timeout").isLessThan(Duration.ofSeconds(10));
    assertThat(buddy.backup("s2")).isEmpty();
    assertThat(owner.engine.stats().backupRefusalsFull()).isPositive();
    assertThat(owner.engine.stats().unconfirmedWrites()).isEqualTo(1);
    assertThat(owner.engine.sessionsWithoutBackup()).isEqualTo(1);
    assertThat(buddy.engine.stats().backupStoreRefusals()).isPositive();
    assertThat(buddy.engine.stats().maxBackupBytes()).isEqualTo(64 * KIB);
    assertThat(buddy.engine.stats().backupBytes()).isLessThanOrEqualTo(64 * KIB);
    assertThat(owner.request("s2", (s, reads) -> { }))
        .as("a request that only sees what the buddy lacks is no 200 either").isEqualTo(FlushOutcome.UNCONFIRMED);

    assertThat(owner.engine.invalidated("s1").get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    owner.engine.runMaintenance(); // the tick sends s2 in full again

    await().atMost(Duration.ofSeconds(10)).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    assertThat(buddy.backup("s2")).hasValueSatisfying(copy -> assertThat((byte[]) copy.get("v")).isEqualTo(bytes(40 * KIB, 2)));
    assertThat(owner.request("s2", (s, reads) -> { })).as("the copy the tick sent covers the refused update")
        .isEqualTo(FlushOutcome.TOUCHED);
  }

  @ParameterizedTest
  @EnumSource(ReplicationScope.class)
  void growthOfAHeldCopyPastTheBound_isUnconfirmed_theBuddyKeepsTheLastConfirmedCopy_untilThereIsRoom(
      ReplicationScope scope) throws Exception {
    EngineCluster cluster = clusters.start(config().scope(scope).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    EngineCluster.Node buddy = cluster.node("n2");
    owner.create("s0");
    owner.create("s1");
    assertThat(owner.request("s0", (s, reads) -> s.setAttribute("v", bytes(20 * KIB, 1)))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("v", bytes(30 * KIB, 2)))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("w", bytes(20 * KIB, 3)))).isEqualTo(FlushOutcome.UNCONFIRMED);

    assertThat(buddy.backup("s1")).as("never dropped, never newer than the last 200")
        .hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("v"));
    assertThat(owner.engine.stats().backupRefusalsFull()).isPositive();

    assertThat(owner.engine.invalidated("s0").get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    owner.engine.runMaintenance();

    await().atMost(Duration.ofSeconds(10)).until(() -> owner.engine.sessionsWithoutBackup() == 0);
    assertThat(buddy.backup("s1")).hasValueSatisfying(copy -> assertThat(copy).containsOnlyKeys("v", "w"));
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("x", 4))).isEqualTo(FlushOutcome.REPLICATED);
  }

  @Test
  void async_refusedForAFullStore_isCounted_andSentAgainOnceThereIsRoom() throws Exception {
    EngineCluster cluster = clusters.start(config().mode(ReplicationMode.ASYNC).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    EngineCluster.Node buddy = cluster.node("n2");
    owner.create("s1");
    owner.create("s2");
    owner.request("s1", (s, reads) -> s.setAttribute("v", bytes(40 * KIB, 1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> buddy.backup("s1").isPresent());

    assertThat(owner.request("s2", (s, reads) -> s.setAttribute("v", bytes(40 * KIB, 2)))).isEqualTo(FlushOutcome.QUEUED);

    await().atMost(Duration.ofSeconds(10)).until(() -> owner.engine.stats().backupRefusalsFull() > 0
        && owner.engine.sessionsWithoutBackup() == 1);
    owner.engine.invalidated("s1").get(5, TimeUnit.SECONDS);
    owner.engine.runMaintenance();
    await().atMost(Duration.ofSeconds(10)).until(() -> buddy.backup("s2").isPresent() && owner.engine.sessionsWithoutBackup() == 0);
  }
}
