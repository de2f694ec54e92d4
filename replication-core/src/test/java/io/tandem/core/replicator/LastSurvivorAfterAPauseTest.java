package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node that stalled past the pause threshold and then sees no other member refused its own sessions, for as long as
 * it saw nobody: it cannot tell being cut off from being left alone. When every member it saw leave died (its host
 * refused a connection), or it never saw one leave (a cluster of one), it is the last survivor: nobody can have moved
 * its sessions on, and it keeps serving them. A member that left without such a sign keeps the refusal
 * ({@code PauseQuarantineTest.pausedNodeThatSeesNobody_refusesRatherThanServeAnUnconfirmedCopy}).
 */
class LastSurvivorAfterAPauseTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final Duration STALL = Duration.ofSeconds(2);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static ReplicationConfig config() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1))
        .pauseThreshold(Duration.ofMillis(1500)).build();
  }

  @Test
  void stalledNodeWhosePeerThenDied_keepsServingItsOwnSessions_andTakesThePeersOver() throws Exception {
    cluster = new EngineCluster(config(), "n1", "n2");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n2.create("mine");
    n2.request("mine", (s, reads) -> s.setAttribute("user", "bob"));
    n1.create("theirs");
    n1.request("theirs", (s, reads) -> s.setAttribute("user", "alice"));
    await().atMost(AWAIT).until(() -> n1.backup("mine").isPresent() && n2.backup("theirs").isPresent());
    cluster.freeze("n2", STALL);
    assertThat(n2.engine.admit("s-none").refusal()).isEmpty(); // the stall is noticed: quarantine

    cluster.kill("n1");
    cluster.cluster.crash(new NodeId("n1"));
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));

    assertThat(n2.engine.admit("mine")).as("its own copy, kept").isEqualTo(Admission.ADMITTED);
    assertThat(n2.engine.owns("mine")).isTrue();
    for (int second = 0; second < 6; second++) { // the membership settles, in steps below the threshold
      cluster.freeze("n2", Duration.ofMillis(1000));
      n2.engine.admit("s-none");
    }
    n2.engine.runMaintenance();
    assertThat(n2.engine.owns("theirs")).as("quarantine lifted, the dead peer's session adopted").isTrue();
    assertThat(n2.engine.stats().pausesDetected()).isEqualTo(1);
  }

  @Test
  void stalledNodeOfAClusterOfOne_keepsServingItsSessions() throws Exception {
    cluster = new EngineCluster(config(), "n1");
    EngineCluster.Node n1 = cluster.node("n1");
    // Alone in a view of its own, not before its first view (a full run in CI order raced it so).
    await().atMost(AWAIT).until(() -> n1.engine.members().contains(new NodeId("n1")));
    n1.create("mine");
    n1.request("mine", (s, reads) -> s.setAttribute("user", "bob"));
    cluster.freeze("n1", STALL);

    assertThat(n1.engine.admit("mine")).isEqualTo(Admission.ADMITTED);
    assertThat(n1.engine.admit("s-new")).as("a new or unknown id is looked for as usual").isNotEqualTo(Admission.ADMITTED);
    assertThat(n1.engine.admit("s-new").refusal()).isEmpty();
    assertThat(n1.engine.stats().pausesDetected()).isEqualTo(1);
  }

  @Test
  void stalledNodeWhosePeerLeftWithoutASignOfDeath_stillRefuses() throws Exception {
    cluster = new EngineCluster(config(), "n1", "n2");
    EngineCluster.Node n2 = cluster.node("n2");
    n2.create("mine");
    n2.request("mine", (s, reads) -> s.setAttribute("user", "bob"));
    await().atMost(AWAIT).until(() -> cluster.node("n1").backup("mine").isPresent());
    cluster.freeze("n2", STALL);
    n2.engine.admit("s-none");

    cluster.crash("n1"); // gone from the view, no refusal, and a dial says nothing: maybe beyond a cut
    await().atMost(AWAIT).until(() -> !n2.engine.members().contains(new NodeId("n1")));
    n2.engine.runMaintenance();

    assertThat(n2.engine.admit("mine").refusal()).isPresent();
    assertThat(n2.engine.owns("mine")).as("refused, not dropped").isTrue();
  }
}
