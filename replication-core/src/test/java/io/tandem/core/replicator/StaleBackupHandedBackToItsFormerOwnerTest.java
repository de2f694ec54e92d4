package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulation, seed 649056 (docs/protocol.md 11.3.47): n5 owned a session with its copy on n1, its successor. n1 was
 * paused; n5's view dropped it, and n5 moved the copy to n2 and went on acknowledging writes with n2. Then n3 migrated
 * the session from n5 (n5 let go of it at epoch 2). Once n1 was back in n5's view, a request for the session on n5 (the
 * id's route names n5) took the one hop: it asked n5's successor, n1, which still held the copy of n5's own ownership
 * from before the pause and handed it to n5, its owner, at epoch 2. n5 served that copy beside n3's, at the same epoch,
 * without the writes n2 had acknowledged. A node that let go of a session asks every member for it, never the one hop.
 * Here with four nodes: n4 in n5's place, n2 in n3's (its buddy n3, so that n4 holds no copy of it).
 */
class StaleBackupHandedBackToItsFormerOwnerTest {
  private static final NodeId ONE = new NodeId("n1");
  private static final NodeId TWO = new NodeId("n2");
  private static final NodeId THREE = new NodeId("n3");
  private static final NodeId FOUR = new NodeId("n4");

  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  /**
   * n4 owned the session, with n1 its buddy; n1 was cut off meanwhile, and n4 acknowledged {@code seq=2} with n2 before
   * n2 took the session over (its buddy n3). Returns the cluster as it was just before the cut heals: n1 still holds
   * {@code seq=1}, its copy of n4's ownership.
   */
  private EngineCluster letGoOfWhileItsFormerBuddyWasCutOff() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(500))
        .settleTimeout(Duration.ofMillis(500)).maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    EngineCluster.Node n4 = cluster.node("n4");
    assertThat(n4.engine.buddy()).as("the ring makes n1 n4's buddy").contains(ONE);
    n4.create("s");
    assertThat(n4.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n1.backup("s")).as("n1 holds n4's copy").contains(Map.of("seq", 1));

    // n1 is cut off (it notices nothing); the others take it for gone, and n4 moves the copy to n2, its buddy now.
    // Releases of the session's copies at epoch 1 are lost from here on: n1 keeps its copy, as a paused node keeps it
    // until the release reaches it.
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate release && release.reason() == Message.InvalidateReason.RELEASED
          && release.epoch() == 1) {
        throw new IllegalStateException("the release is lost");
      }
      return cluster.throughTheCodec(message);
    });
    cluster.network.partition(Set.of(ONE), Set.of(TWO, THREE, FOUR));
    Set<NodeId> rest = Set.of(TWO, THREE, FOUR);
    cluster.cluster.split(Map.of(TWO, rest, THREE, rest, FOUR, rest));
    await().atMost(Duration.ofSeconds(10)).until(() -> n4.engine.buddy().map(TWO::equals).orElse(false)
        && n2.engine.backupOf("s").isPresent());
    assertThat(n4.request("s", (s, reads) -> s.setAttribute("seq", 2))).as("acknowledged by n2").isEqualTo(FlushOutcome.REPLICATED);

    // n2 takes the session over from n4, which lets go of it at epoch 2; n2's buddy is n3.
    Acquisition moved = n2.engine.acquire("s", "n4");
    assertThat(moved.snapshot()).as(moved.toString()).isPresent();
    assertThat(n2.engine.owns("s")).isTrue();
    assertThat(n4.engine.owns("s")).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> n3.engine.backupOf("s").isPresent());

    return cluster;
  }

  @Test
  void formerOwnerAskingForASessionItLetGoOf_doesNotTakeItsStaleSuccessorsCopy() throws Exception {
    EngineCluster cluster = letGoOfWhileItsFormerBuddyWasCutOff();
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");

    // Everything heals; a request for the session on n4, whose route names n4, once n4's memory of the session being
    // on its way (ackTimeout + settleTimeout) has run out, as in the seed. n1, n4's successor again, still holds the
    // copy of n4's ownership from before the cut.
    cluster.network.heal();
    cluster.cluster.reunite();
    await().atMost(Duration.ofSeconds(10)).until(() -> n4.engine.buddy().map(ONE::equals).orElse(false));
    Thread.sleep(2_000); // twice ackTimeout + settleTimeout, since the hand-away: the memory of it being on its way is gone
    assertThat(n1.backup("s")).as("n1's copy, still there").contains(Map.of("seq", 1));
    assertThat(n4.engine.backupOf("s")).as("n4 holds no copy: n2's buddy is n3").isEmpty();
    Acquisition back = n4.engine.acquire("s", "n4");

    assertThat(n4.engine.owns("s") && n2.engine.owns("s")).as("n4 took n1's copy at the epoch n2 owns it at: two owners, "
        + back).isFalse();
    assertThat(back.snapshot()).as(back.toString()).isPresent();
    assertThat(n4.decode(back.snapshot().get())).as("n2's copy, with the write n2 acknowledged, not n1's older one")
        .containsEntry("seq", 2);
  }

  /**
   * The same, with n2 and n3, which hold the session now, not answering n4 when it asks every member: n1's backup is
   * the only copy that answers, and n4 let go of the session at a later epoch than that backup's. Migrated in, it tied
   * n2 as the one hop's did.
   */
  @Test
  void formerOwnerAskingEveryMember_whileTheNewOwnerIsSilent_doesNotTakeItsStaleCopy() throws Exception {
    EngineCluster cluster = letGoOfWhileItsFormerBuddyWasCutOff();
    EngineCluster.Node n4 = cluster.node("n4");

    cluster.network.heal();
    cluster.cluster.reunite();
    await().atMost(Duration.ofSeconds(10)).until(() -> n4.engine.buddy().map(ONE::equals).orElse(false));
    Thread.sleep(2_000);
    cluster.network.partition(Set.of(TWO, THREE), Set.of(ONE, FOUR)); // the views still list every member
    Acquisition back = n4.engine.acquire("s", "n4");

    refusedItsStaleCopy(cluster, back);
  }

  /**
   * The same, with n4's view listing only n1 and itself (a partition's other side, or a heal whose views merge one at a
   * time): n2 and n3 are not asked, so nobody is silent, and n1's backup is the only copy any member reports. It is
   * older than the epoch n4 let the session go at, so it is not migrated in.
   */
  @Test
  void formerOwnerAskingEveryMember_whoseViewDoesNotListTheNewOwner_doesNotTakeItsStaleCopy() throws Exception {
    EngineCluster cluster = letGoOfWhileItsFormerBuddyWasCutOff();
    EngineCluster.Node n4 = cluster.node("n4");

    Thread.sleep(2_000);
    cluster.network.heal();
    cluster.network.partition(Set.of(TWO, THREE), Set.of(ONE, FOUR));
    cluster.cluster.split(Map.of(ONE, Set.of(ONE, FOUR), FOUR, Set.of(ONE, FOUR)));
    await().atMost(Duration.ofSeconds(10)).until(() -> n4.engine.buddy().map(ONE::equals).orElse(false));
    Acquisition back = n4.engine.acquire("s", "n4");

    refusedItsStaleCopy(cluster, back);
  }

  /** n4 did not take n1's stale copy: it answered why, n1 still holds it, n2 still owns the session. */
  private static void refusedItsStaleCopy(EngineCluster cluster, Acquisition back) {
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    assertThat(n4.engine.owns("s")).as("n4 took n1's copy at the epoch n2 owns it at: two owners, " + back).isFalse();
    assertThat(back.unavailable()).as(back.toString()).hasValueSatisfying(why -> assertThat(why).contains("was let go of here"));
    assertThat(n1.backup("s")).as("n1's copy, not handed out").contains(Map.of("seq", 1));
    assertThat(n2.engine.owns("s")).isTrue();
  }
}
