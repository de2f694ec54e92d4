package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling restart in CI lost every session of the node that left ("write 228 on n2 found seq -1 after write 85 was
 * acknowledged by n2"): its buddy adopted the sessions it was handed, its JVM stalled past the pause threshold before
 * their copies reached its own buddy, and the check after the pause, finding no other member holding them, dropped
 * the only copy there was. The restarted node then asked for them, was told by the adopter that they existed but
 * not confirmed, heard "not held" from everyone, and gave each user a new, empty session.
 *
 * <p>Three nodes, ring n1 -> n2 -> n3 -> n1: n2 owns the session, n3 holds its copy and adopts it at the handoff, n1
 * is n3's buddy.
 */
class HandedOffSessionAtAPausedAdopterTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final Duration STALL = Duration.ofSeconds(2);
  private EngineCluster cluster;
  /** While set, re-protection batches (n3's copies for n1) fail on the wire, as if they had not arrived yet. */
  private final AtomicBoolean copiesHeldBack = new AtomicBoolean();

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private EngineCluster start() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).pauseThreshold(Duration.ofMillis(1500)).build(), "n1", "n2", "n3");
    cluster.holdBackReprotection(copiesHeldBack::get);
    EngineCluster.Node n2 = cluster.node("n2");
    n2.create("s");
    n2.request("s", (s, reads) -> s.setAttribute("seq", 85));
    await().atMost(AWAIT).until(() -> cluster.node("n3").backup("s").isPresent());
    return cluster;
  }

  @Test
  void adopterPausedBeforeItsCopyReachedTheBuddy_keepsTheOnlyCopyAndProtectsIt() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n3 = c.node("n3");
    copiesHeldBack.set(true);

    assertThat(c.node("n2").engine.handOff(Duration.ofSeconds(5))).isEqualTo(1);
    assertThat(n3.engine.owns("s")).isTrue();
    c.freeze("n3", STALL);

    assertThat(n3.engine.admit("s")).isEqualTo(Admission.ADMITTED);
    assertThat(n3.engine.owns("s")).as("the only copy is kept").isTrue();
    assertThat(n3.listener.fenced).isEmpty();
    copiesHeldBack.set(false);
    // A failed batch is retried by the next maintenance tick (every second in production; this cluster's ticks run
    // only when asked). One tick is not enough: an attempt made while copies were held back may still be failing
    // as it runs, and a session in flight is not queued again (a CI run timed out so).
    await().atMost(AWAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
      n3.engine.runMaintenance();
      return c.node("n1").backup("s").isPresent();
    });
    assertThat(c.node("n1").backup("s").get()).containsEntry("seq", 85);
  }

  @Test
  void restartedFormerOwnerAskingForASessionItsAdopterHoldsUnconfirmed_isToldToRetry_notGivenANewSession() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n3 = c.node("n3");
    copiesHeldBack.set(true);
    assertThat(c.node("n2").engine.handOff(Duration.ofSeconds(5))).isEqualTo(1);
    c.freeze("n3", STALL);
    n3.engine.admit("another-session"); // n3 notices its pause: "s" is unconfirmed until n3 asks the others
    c.crash("n2");
    EngineCluster.Node restarted = c.start("n2");
    await().atMost(AWAIT).until(() -> restarted.engine.buddy().isPresent());

    Acquisition asked = restarted.engine.acquire("s", "n2");

    assertThat(asked.snapshot()).isEmpty();
    assertThat(asked.unavailable()).as("exists, unconfirmed: retry, never a new session").isPresent();
    assertThat(c.node("n1").backup("s")).isEmpty();
    copiesHeldBack.set(false);
    assertThat(n3.engine.admit("s")).as("n3 holds the only copy").isEqualTo(Admission.ADMITTED);
    assertThat(restarted.engine.acquire("s", "n2").snapshot()).hasValueSatisfying(found -> assertThat(found.epoch()).isGreaterThan(1));
  }

  @Test
  void pausedOwnerWhoseSessionWasTakenOverAndEndedMeanwhile_dropsItsCopy() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n2 = c.node("n2");
    EngineCluster.Node n3 = c.node("n3");
    c.cluster.crash(new NodeId("n2")); // the others took n2 for dead while it was frozen; it heard nothing
    await().atMost(AWAIT).until(() -> n3.engine.owns("s"));
    await().atMost(AWAIT).until(() -> c.node("n1").backup("s").isPresent());
    assertThat(n3.engine.invalidated("s").get(5, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.REPLICATED);
    await().atMost(AWAIT).until(() -> c.node("n1").backup("s").isEmpty());

    c.freeze("n2", STALL);

    assertThat(n2.engine.admit("s")).isEqualTo(Admission.FETCH_FIRST);
    assertThat(n2.engine.owns("s")).as("ended elsewhere: never served again").isFalse();
    assertThat(n2.listener.fenced).containsExactly("s");
  }
}
