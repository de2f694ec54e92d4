package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulation, seed 1631 of the nemesis's second generation (docs/protocol.md 11.3.48): n1 asked n3 for a session
 * and n3 handed it over at epoch 5; while the answer was on its way, the membership dropped n3, and n3's buddy n4
 * adopted the session from its copy, at epoch 5 too. n1's view no longer listed n3 when the answer came, so n1 released
 * no copy of n3's buddy (it looked that buddy up in its current view) and served the session beside n4, each with
 * its own buddy, neither knowing of the other. The holder's buddy is looked up in the view the holder was asked in.
 * Here the answer comes after the asker gave up, and is installed as it comes (five nodes: the two owners' buddies
 * differ, as in the seed).
 */
class HandedOutByAHolderTheViewDroppedTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void holderDroppedFromTheViewWhileItsAnswerWasOnItsWay_itsBuddysAdoptionIsNotServedBesideTheRequesters() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofMillis(100)).build(), "n1", "n2", "n3", "n4", "n5");
    cluster.network.honourRequestTimeouts(); // the asker's transport waits on for the answer, as Grizzly does
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s"); // seq=5 on n1, its copy on n2

    AtomicBoolean slow = new AtomicBoolean(true);
    cluster.slowDown(Message.FullSession.class, slow::get, Duration.ofMillis(1_500));
    Acquisition first = n4.engine.acquire("s", "n1");
    assertThat(first.unavailable()).as("n1 answers after n4's ack timeout: " + first).isPresent();

    // While n1's answer is on its way, every other member's view drops n1, and n2, its buddy, adopts the session.
    Set<NodeId> rest = Set.of(new NodeId("n2"), new NodeId("n3"), new NodeId("n4"), new NodeId("n5"));
    cluster.cluster.split(Map.of(new NodeId("n2"), rest, new NodeId("n3"), rest, new NodeId("n4"), rest,
        new NodeId("n5"), rest));
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.owns("s"));
    await().atMost(Duration.ofSeconds(5)).until(() -> n4.engine.owns("s") || n4.engine.stats().sessionsMigratedIn() > 0
        || n4.listener.fenced.contains("s"));
    slow.set(false);

    await("one owner again").atMost(Duration.ofSeconds(5))
        .until(() -> !(n2.engine.owns("s") && n4.engine.owns("s")));
    assertThat(n2.engine.owns("s")).as("n2, which adopted the session, keeps it; n4 gave way").isTrue();
    Acquisition kept = n2.engine.acquire("s", "n1");
    assertThat(kept.snapshot()).as(kept.toString()).isPresent();
    assertThat(n2.decode(kept.snapshot().get())).as("with the write acknowledged before").containsEntry("seq", 5);
  }
}
