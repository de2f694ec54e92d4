package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/protocol.md 11.3.41 (left open by 11.3.34, found by reading): a node that migrated a session in and stopped
 * gracefully before the holder's buddy answered the release of its copy forgot the release as it left. The copy stayed
 * there, adoptable at the epoch this node had claimed should the holder die, beside the buddy this node handed the
 * session to. A graceful leave waits (within its handoff timeout) for those releases as it does for its handovers.
 */
class GracefulLeaveWithAReleasePendingTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void gracefulLeave_waitsForTheReleaseOfTheHoldersBuddysCopy() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(100))
        .build(), "n1", "n2", "n3", "n4", "n5");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n4 (whose buddy is n5) migrates the session from n1; its release of n1's buddy n2 is lost for now.
    AtomicBoolean losing = new AtomicBoolean(true);
    cluster.loseReleasesOf("s", losing::get);
    assertThat(n4.engine.acquire("s", "n1").snapshot()).as("its release is unanswered").isEmpty();
    assertThat(n4.engine.owns("s")).isTrue();

    // n4 stops gracefully; the network lets releases through a moment later.
    CompletableFuture<Integer> handedOff = CompletableFuture.supplyAsync(() -> n4.engine.handOff(Duration.ofSeconds(5)));
    Thread.sleep(400);
    boolean leftAlready = handedOff.isDone();
    losing.set(false);
    handedOff.get(10, TimeUnit.SECONDS);

    assertThat(leftAlready).as("n4 left before n2 answered its release").isFalse();
    assertThat(n2.engine.backupOf("s")).as("n1's copy on n2, released before n4 left").isEmpty();
  }
}
