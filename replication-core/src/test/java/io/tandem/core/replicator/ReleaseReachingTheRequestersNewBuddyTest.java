package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seeds 326270 and 328592 (docs/protocol.md 11.3.36): n4 migrated a session in from n1 and released n1's buddy
 * n2; the release was lost and sent again by the tick (11.3.34). Meanwhile n1 died and n2 became n4's buddy, holding
 * n4's copy at n4's epoch. The release sent again reached it then, was refused {@code STALE_EPOCH} at that epoch, and
 * n4 read it as "n2 adopted the session at my epoch": it let go, and the session's one copy stayed on n2, for an owner
 * that no longer claimed it, refused to every member that asked. A buddy holding the releaser's own copy above the
 * released epoch acknowledges the release and keeps the copy.
 */
class ReleaseReachingTheRequestersNewBuddyTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void releaseSentAgainToTheBuddyThatNowHoldsTheRequestersCopy_doesNotFenceTheRequester() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(100))
        .build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");

    AtomicBoolean losing = new AtomicBoolean(true);
    cluster.loseReleasesOf("s", losing::get);
    assertThat(n4.engine.acquire("s", "n1").snapshot()).as("its release is unanswered").isEmpty();
    assertThat(n4.engine.owns("s")).isTrue();
    long epoch = n4.engine.promote("s").orElseThrow().epoch();

    // n1's process is killed (the view still lists it): n4's buddy is n2 now, which is sent n4's copy at n4's epoch
    // in place of n1's.
    cluster.kill("n1");
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(n2.engine.backupOf("s")).hasValueSatisfying(copy -> assertThat(copy.epoch()).isEqualTo(epoch)));
    losing.set(false);

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(n4.engine.admit("s")).as("the release sent again was answered").isEqualTo(Admission.ADMITTED));
    assertThat(n4.engine.owns("s")).as("n4 was not fenced by its own copy on n2").isTrue();
    assertThat(n2.engine.owns("s")).isFalse();
    assertThat(n2.backup("s")).hasValue(Map.of("seq", 5));
  }
}
