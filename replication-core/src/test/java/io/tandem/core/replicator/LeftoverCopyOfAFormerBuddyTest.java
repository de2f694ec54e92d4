package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling restart: n2 went away and its successor n3 became n1's buddy; n2 came back and is n1's buddy again. n1
 * re-protected its session on n2 and tells n3 to drop its copy at the next maintenance tick; from the first write on
 * n2, n3's copy is stale. n1 dies in between (the next node of the restart, stopped a moment too early, or a crash).
 * n2 and n3 both hold a copy of n1's session, and both adopted it at the same epoch: the older copy could win, and the
 * 200s n1 gave since n2 came back were lost (a read-only review found the interleaving).
 *
 * <p>Ring n1 -> n2 -> n3 -> n1. The maintenance tick runs only when asked, so n3 is never released here.
 */
class LeftoverCopyOfAFormerBuddyTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @RegisterExtension final EngineClusters clusters = new EngineClusters();
  private EngineCluster cluster;

  /** n1's session has seq 1 on n3 (its buddy while n2 was away) and, when {@code written}, seq 2 on n2 and n1. */
  private EngineCluster.Node n2CameBack(boolean written) throws Exception {
    cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1)).build(),
        "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    cluster.crash("n2");
    await().atMost(AWAIT).until(() -> cluster.node("n3").backup("s").isPresent());
    if (!written) {
      cluster.holdBackReprotection(() -> true); // n1's copy for the returning n2 is still on its way
    }
    EngineCluster.Node n2 = cluster.start("n2");
    await().atMost(AWAIT).until(() -> n1.engine.buddy().map(b -> b.value().equals("n2")).orElse(false));
    if (written) {
      await().atMost(AWAIT).until(() -> n2.backup("s").isPresent());
      assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 2))).isEqualTo(FlushOutcome.REPLICATED);
      assertThat(cluster.node("n3").backup("s")).as("stale: released at the next tick").contains(Map.of("seq", 1));
    }
    return n2;
  }

  @Test
  void ownerDiesBeforeItsFormerBuddyDroppedItsCopy_theNewestCopyIsTheOnlyOwner() throws Exception {
    EngineCluster.Node n2 = n2CameBack(true);

    cluster.crash("n1");

    EngineCluster.Node n3 = cluster.node("n3");
    await().atMost(AWAIT).until(() -> n2.engine.owns("s") || n3.engine.owns("s"));
    await().atMost(AWAIT).until(() -> n2.engine.sessionsWithoutBackup() == 0 && n3.engine.sessionsWithoutBackup() == 0);
    assertThat(n3.engine.owns("s")).as("n3's copy is older than n1's last 200").isFalse();
    assertThat(n2.engine.owns("s")).isTrue();
    assertThat(n2.engine.promote("s").map(n2::decode)).contains(Map.of("seq", 2));
    assertThat(n3.backup("s")).contains(Map.of("seq", 2));
  }

  @Test
  void requestAtTheFormerBuddyBeforeTheHeirCopiedTheSessionThere_migratesTheNewestCopy_notTheLeftover() throws Exception {
    EngineCluster.Node n2 = n2CameBack(true);
    cluster.holdBackReprotection(() -> true); // n2 adopts, but its copy for n3 does not arrive: n3 keeps its leftover
    cluster.crash("n1");
    await().atMost(AWAIT).until(() -> n2.engine.owns("s"));
    EngineCluster.Node n3 = cluster.node("n3");

    Acquisition found = n3.engine.acquire("s", "n1");

    assertThat(found.snapshot()).isPresent();
    assertThat(n3.decode(found.snapshot().get())).containsEntry("seq", 2);
    assertThat(found.snapshot().get().epoch()).as("migrated from n2, which adopted it at 2").isEqualTo(3);
    assertThat(n2.engine.owns("s")).isFalse();
  }

  @Test
  void leftoverWhoseHeirNeverHadTheSession_isAdoptedOnceEveryMemberSaidSo() throws Exception {
    EngineCluster.Node n2 = n2CameBack(false);
    assertThat(n2.backup("s")).isEmpty();

    cluster.crash("n1");

    EngineCluster.Node n3 = cluster.node("n3");
    await().atMost(AWAIT).until(() -> n3.engine.owns("s"));
    assertThat(n3.engine.promote("s").map(n3::decode)).contains(Map.of("seq", 1));
    assertThat(n2.engine.owns("s")).isFalse();
  }

  /**
   * Four nodes: the heir n2 is silent while a request at n4 asks every member; n3's leftover (seq 1) is the only copy
   * anyone reports. Handed to n4 at the next epoch, it made a second owner beside n2, which adopted seq 2 at that epoch
   * (the review of the fix found it).
   */
  @Test
  void leftoverIsNotHandedToAThirdNode_whileTheHeirIsSilent() throws Exception {
    cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1)).build(),
        "n1", "n2", "n3", "n4");
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    cluster.crash("n2");
    await().atMost(AWAIT).until(() -> cluster.node("n3").backup("s").isPresent());
    EngineCluster.Node n2 = cluster.start("n2");
    await().atMost(AWAIT).until(() -> n2.backup("s").isPresent());
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 2))).isEqualTo(FlushOutcome.REPLICATED);
    cluster.holdBackReprotection(() -> true); // n2's copy of what it adopts does not reach n3
    cluster.network.hang(new io.tandem.core.spi.NodeId("n2")); // and n2 answers nobody
    cluster.crash("n1");
    await().atMost(AWAIT).until(() -> n2.engine.owns("s"));

    Acquisition atN4 = cluster.node("n4").engine.acquire("s");

    assertThat(atN4.snapshot()).as("only n3's older copy answered: not handed out").isEmpty();
    assertThat(atN4.unavailable()).isPresent();
    cluster.network.resume(new io.tandem.core.spi.NodeId("n2"));
    cluster.holdBackReprotection(() -> false);
    Acquisition retried = cluster.node("n4").engine.acquire("s");
    assertThat(retried.snapshot()).isPresent();
    assertThat(cluster.node("n4").decode(retried.snapshot().get())).containsEntry("seq", 2);
  }
}
