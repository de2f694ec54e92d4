package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose JVM did not run for longer than the pause threshold (SIGSTOP, a long GC) must not serve a copy the
 * cluster has moved on from, nor adopt backups because its own view briefly shows the others gone.
 */
class PauseQuarantineTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private static final Duration PAUSE = Duration.ofSeconds(9);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private EngineCluster start() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).pauseThreshold(Duration.ofMillis(1500)).build(), "n1", "n2", "n3");
    return cluster;
  }

  private static EngineCluster.Node owning(EngineCluster c, String node, String session) {
    EngineCluster.Node owner = c.node(node);
    owner.create(session);
    owner.request(session, (s, reads) -> s.setAttribute("a", 1));
    return owner;
  }

  /**
   * n3 owns s3 with n1 as its buddy; n1 then takes s3 over at the next epoch without n3 hearing of it, as a node cut
   * off from n3 would adopt it, and has no buddy to copy it to. Returns n1.
   */
  private static EngineCluster.Node n1AdoptsN3sSessionUnbeknownToN3(EngineCluster c) throws Exception {
    owning(c, "n3", "s3");
    EngineCluster.Node n1 = c.node("n1");
    await().atMost(AWAIT).until(() -> n1.backup("s3").isPresent());
    io.tandem.core.session.SessionSnapshot copy = n1.engine.backupOf("s3").orElseThrow();
    c.holdBackReprotection(() -> true);
    assertThat(c.node("n3").transport.request(new NodeId("n1"), new io.tandem.core.wire.Message.BulkTransfer(
        io.tandem.core.wire.Message.BulkTransfer.Purpose.HANDOFF, List.of(copy))).get(5, TimeUnit.SECONDS))
        .isInstanceOf(io.tandem.core.wire.Message.Ack.class);
    assertThat(n1.engine.owns("s3")).isTrue();
    assertThat(c.node("n3").engine.owns("s3")).isTrue();
    return n1;
  }

  @Test
  void noPause_admitsWithoutAsking() throws Exception {
    EngineCluster c = start();
    owning(c, "n1", "s1");

    assertThat(c.node("n1").engine.admit("s1")).isEqualTo(Admission.ADMITTED);
    assertThat(c.node("n1").engine.stats().pausesDetected()).isZero();
  }

  @Test
  void pausedOwnerWhoseBuddyStillHoldsItsCopy_keepsServingIt() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = owning(c, "n1", "s1");
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());

    c.freeze("n1", PAUSE);

    assertThat(owner.engine.admit("s1")).isEqualTo(Admission.ADMITTED);
    assertThat(owner.engine.owns("s1")).isTrue();
    assertThat(owner.listener.fenced).isEmpty();
    assertThat(owner.engine.stats().pausesDetected()).isEqualTo(1);
  }

  @Test
  void pausedOwnerWhoseSessionWasTakenOver_dropsItsCopyAndMustFetchTheNewOne() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = owning(c, "n1", "s1");
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());
    c.cluster.crash(new NodeId("n1")); // the others declared it dead while it was frozen; it heard nothing
    await().atMost(AWAIT).until(() -> c.node("n2").engine.owns("s1"));

    c.freeze("n1", PAUSE);

    assertThat(owner.engine.admit("s1")).isEqualTo(Admission.FETCH_FIRST);
    assertThat(owner.engine.owns("s1")).isFalse();
    assertThat(owner.listener.fenced).containsExactly("s1");
  }

  /**
   * Regression (the partition drill in CI: "write 293 on n3 found seq 7 after write 291 was acknowledged by n3"): a node
   * whose view dropped a live owner before dropping the rest adopted its stale backup at a higher epoch, while the owner
   * went on writing at its own epoch with another buddy. After the heal, no member held a copy at the adopter's epoch
   * or a newer one, and a check that took "no newer epoch" for "this copy is the newest" kept it, then fenced the owner
   * with it. A copy elsewhere at an older epoch is no proof of that: only a session no member knows at all is kept.
   */
  @Test
  void pausedNodeThatAdoptedACopyAtAHigherEpochWhileTheOwnerWentOnAtItsOwn_dropsIt() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n1 = n1AdoptsN3sSessionUnbeknownToN3(c);

    c.freeze("n1", PAUSE);

    assertThat(n1.engine.admit("s3")).isEqualTo(Admission.FETCH_FIRST);
    assertThat(n1.engine.owns("s3")).as("n3 owns it at its own, older epoch: n1's copy is not the newest").isFalse();
  }

  /**
   * The same node, while a member does not answer: that member may be its buddy, holding its copy at its own epoch
   * (which would confirm it), so it neither keeps nor drops its copy, and lifts no refusal; it answers 503 until
   * every member answered.
   */
  @Test
  void pausedNodeThatAdoptedAtAHigherEpoch_whileAMemberIsSilent_refusesRatherThanYield() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node n1 = n1AdoptsN3sSessionUnbeknownToN3(c);
    c.freeze("n1", PAUSE);
    c.network.hang(new NodeId("n2"));

    assertThat(n1.engine.admit("s3").refusal()).hasValueSatisfying(why -> assertThat(why).contains("n2", "did not answer"));
    assertThat(n1.engine.owns("s3")).isTrue();

    c.network.resume(new NodeId("n2"));
    assertThat(n1.engine.admit("s3")).isEqualTo(Admission.FETCH_FIRST);
    assertThat(n1.engine.owns("s3")).isFalse();
  }

  /**
   * Regression (the partition drill, SESSION SYNC, about one run in six with {@code writeLinger="2ms"}: "write 279 on n3
   * found seq -1 after write 278 was acknowledged by n3"): the node cut off, n1, had adopted n3's session at a higher
   * epoch before its view lost the rest, while n3 went on writing at its own epoch with n2 as its buddy. After the
   * heal n3 re-sent its copy to n1, its buddy again, and n1, not yet confirmed, refused it as stale: n3 dropped the
   * newest copy, and n1's confirmation then found no other and kept its own, older one. An ownership not confirmed
   * since a pause or a cut must not fence the owner: it refuses without a verdict until it has asked the others.
   */
  @Test
  void nodeThatAdoptedAtAHigherEpochAndWasCutOff_refusesTheOwnersCopyWithoutFencingIt_untilItDroppedItsOwn()
      throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1))
        .pauseThreshold(Duration.ofMillis(1500)).build(), "n1", "n2", "n3");
    EngineCluster c = cluster;
    EngineCluster.Node n1 = n1AdoptsN3sSessionUnbeknownToN3(c);
    EngineCluster.Node n3 = c.node("n3");
    c.freeze("n1", PAUSE);
    assertThat(n1.engine.admit("s-none").refusal()).isEmpty(); // n1 notices: its sessions are unconfirmed

    assertThat(n3.request("s3", (s, reads) -> s.setAttribute("a", 2)))
        .as("refused without a verdict: unknown outcome, n3 keeps its copy").isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(n3.engine.owns("s3")).isTrue();
    assertThat(n3.listener.fenced).isEmpty();

    assertThat(n1.engine.admit("s3")).as("n3 owns it at its own, older epoch").isEqualTo(Admission.FETCH_FIRST);
    assertThat(n1.engine.owns("s3")).isFalse();
    c.holdBackReprotection(() -> false);
    assertThat(n3.request("s3", (s, reads) -> s.setAttribute("a", 3))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n1.backup("s3")).contains(Map.of("a", 3));
  }

  @Test
  void pausedNodeThatSeesNobody_refusesRatherThanServeAnUnconfirmedCopy() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = owning(c, "n1", "s1");
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());
    c.cluster.crash(new NodeId("n2"));
    c.cluster.crash(new NodeId("n3"));
    await().atMost(AWAIT).until(() -> owner.engine.buddy().isEmpty());

    c.freeze("n1", PAUSE);

    Admission admission = owner.engine.admit("s1");
    assertThat(admission.refusal()).hasValueSatisfying(why -> assertThat(why).contains("was paused", "s1"));
    assertThat(owner.engine.admit("s-unknown").refusal()).as("nor one it would have to look for").isPresent();
    assertThat(owner.engine.owns("s1")).as("refused, not dropped: it may be the only copy").isTrue();
  }

  @Test
  void pausedNode_adoptsNoBackupUntilItsMembershipSettled() throws Exception {
    EngineCluster c = start();
    owning(c, "n3", "s3"); // n3's buddy is n1
    EngineCluster.Node n1 = c.node("n1");
    await().atMost(AWAIT).until(() -> n1.backup("s3").isPresent());

    c.freeze("n1", PAUSE);
    assertThat(n1.engine.admit("s-none").refusal()).isEmpty(); // the pause is noticed
    c.cluster.crash(new NodeId("n3"));
    await().atMost(AWAIT).until(() -> n1.engine.buddy().map(b -> b.value().equals("n2")).orElse(false));

    assertThat(n1.engine.owns("s3")).as("no adoption in quarantine").isFalse();
    assertThat(n1.backup("s3")).isPresent();

    for (int second = 0; second < 6; second++) { // time passes in steps below the threshold: no new pause
      c.freeze("n1", Duration.ofMillis(1000));
      n1.engine.admit("s-none");
    }
    n1.engine.runMaintenance();

    assertThat(n1.engine.stats().pausesDetected()).isEqualTo(1);

    assertThat(n1.engine.owns("s3")).as("adopted once quarantine lifted").isTrue();
  }

  @Test
  void pauseAfterTheRequestWasAdmittedThroughItsHandle_itsFlushIsUnconfirmed_andTheNextRequestConfirmsFirst()
      throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = owning(c, "n1", "s1");
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());
    TestSession session = owner.sessions.get("s1");
    assertThat(owner.engine.admit(session.handle())).isEqualTo(Admission.ADMITTED);
    session.setAttribute("a", 2);

    c.freeze("n1", PAUSE); // SIGSTOP after the request was admitted, before its flush

    assertThat(owner.engine.flush(session.handle(), Set.of())).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(owner.engine.stats().pausesDetected()).isEqualTo(1);
    assertThat(c.node("n2").backup("s1")).as("nothing sent before confirmation").contains(Map.of("a", 1));

    assertThat(owner.engine.admit(session.handle())).as("confirmed: the buddy holds this epoch").isEqualTo(Admission.ADMITTED);
    assertThat(owner.engine.flush(session.handle(), Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(c.node("n2").backup("s1")).contains(Map.of("a", 2));
  }

  @Test
  void pauseNoticedByManyRequestsAtOnce_everyFlushIsUnconfirmed_andThePauseCountsOnce() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = c.node("n1");
    int requests = 8;
    List<TestSession> sessions = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      TestSession session = owner.create("s" + i);
      assertThat(owner.request("s" + i, (s, reads) -> s.setAttribute("a", 1))).isEqualTo(FlushOutcome.REPLICATED);
      session.setAttribute("a", 2);
      sessions.add(session);
    }
    ExecutorService pool = Executors.newFixedThreadPool(requests);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<FlushOutcome>> flushes = new ArrayList<>();
      for (TestSession session : sessions) {
        flushes.add(pool.submit(() -> {
          go.await();
          return owner.engine.flush(session.handle(), Set.of());
        }));
      }
      c.freeze("n1", PAUSE);
      go.countDown(); // every request's flush is the first to run after the pause, as far as it can tell

      for (Future<FlushOutcome> flush : flushes) {
        assertThat(flush.get(10, TimeUnit.SECONDS)).isEqualTo(FlushOutcome.UNCONFIRMED);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(owner.engine.stats().pausesDetected()).isEqualTo(1);
  }
}
