package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A node that holds neither the session nor its backup locates it and migrates it in (n1 → n2 → n3 → n1). */
class ReplicationEngineMigrationTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private EngineCluster start() throws Exception {
    cluster = new EngineCluster(
        ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3");
    return cluster;
  }

  @Test
  void acquire_fromALiveOwner_movesOwnershipAndEveryCopyFollows() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("cart", "book"));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());

    EngineCluster.Node n3 = c.node("n3");
    var acquired = n3.engine.acquire("s1").snapshot();

    assertThat(acquired.map(n3::decode)).contains(Map.of("cart", "book"));
    assertThat(acquired.orElseThrow().epoch()).isEqualTo(2);
    assertThat(n3.engine.owns("s1")).isTrue();
    assertThat(owner.engine.owns("s1")).isFalse();
    assertThat(owner.listener.fenced).containsExactly("s1");
    await().atMost(AWAIT).untilAsserted(() -> {
      assertThat(owner.backup("s1")).contains(Map.of("cart", "book"));
      assertThat(c.node("n2").backup("s1")).isEmpty();
      assertThat(n3.engine.sessionsWithoutBackup()).isZero();
    });
    assertThat(n3.engine.stats().sessionsMigratedIn()).isEqualTo(1);
  }

  /**
   * Regression: of the holders every member reported, an owner was preferred to a backup whatever their epochs. A
   * backup at a newer epoch than an owner's copy is the copy of the owner that took the session over since (here it
   * hangs, so it does not answer); the old owner's copy is stale, and migrating it in would make a second owner at the
   * epoch the hung one holds. The newer epoch wins, and the owner only at the same epoch: here the backup's holder
   * refuses to hand over a copy whose owner is a member, so the session is unavailable until that owner answers or
   * leaves the view, never taken from the stale owner.
   */
  @Test
  void acquire_anOwnerAtAnOlderEpochAndABackupAtANewerOne_theBackupWins() throws Exception {
    cluster = new EngineCluster(
        ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3", "n4");
    EngineCluster c = cluster;
    c.node("n1").create("s");
    c.node("n1").request("s", (s, reads) -> s.setAttribute("cart", "book"));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s").isPresent());
    assertThat(c.node("n2").engine.promote("s")).hasValueSatisfying(s -> assertThat(s.epoch()).isEqualTo(2)); // n1 not told
    await().atMost(AWAIT).until(() -> c.node("n3").engine.backupOf("s").map(b -> b.epoch() == 2).orElse(false));
    c.network.hang(new io.tandem.core.spi.NodeId("n2"));
    try {
      var acquired = c.node("n4").engine.acquire("s");

      assertThat(acquired.snapshot()).as("not n1's stale copy, taken at the epoch the hung n2 owns it at").isEmpty();
      assertThat(acquired.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("n3"));
      assertThat(c.node("n1").listener.fenced).isEmpty();
    } finally {
      c.network.resume(new io.tandem.core.spi.NodeId("n2"));
    }
  }

  /**
   * Regression: the owner that hands a session over tells its buddy to drop its copy, once; a release lost on the way
   * left a stale copy there, which that buddy would adopt, at the new owner's epoch, the day the former owner left.
   */
  @Test
  void acquire_releaseOfTheFormerOwnersBuddyLostOnTheWay_isSentAgainByTheNextTick() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("cart", "book"));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());
    // Every release of n2's copy (at the former owner's epoch) is lost: the holder's, and the one the new owner sends
    // the holder's buddy as it installs the session (RemoteTakeover).
    java.util.concurrent.atomic.AtomicBoolean lose = new java.util.concurrent.atomic.AtomicBoolean(true);
    c.network.setWireHook(message -> {
      if (lose.get() && message instanceof io.tandem.core.wire.Message.Invalidate release
          && release.sessionId().equals("s1") && release.epoch() == 1
          && release.reason() == io.tandem.core.wire.Message.InvalidateReason.RELEASED) {
        throw new IllegalStateException("release lost on the way");
      }
      return c.throughTheCodec(message);
    });

    // n3 installs the session, and serves it only once n2 answered n3's own release (docs/protocol.md 11.3.34).
    assertThat(c.node("n3").engine.acquire("s1").unavailable()).isPresent();
    assertThat(c.node("n3").engine.owns("s1")).isTrue();
    Thread.sleep(EngineCluster.TIMEOUT.multipliedBy(2).toMillis());
    assertThat(c.node("n2").backup("s1")).as("the release was lost").isPresent();
    lose.set(false);
    owner.engine.runMaintenance();

    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isEmpty());
    c.node("n3").engine.runMaintenance(); // n3's release sent again
    await().atMost(AWAIT).until(() -> c.node("n3").engine.admit("s1").equals(Admission.ADMITTED));
  }

  @Test
  void acquire_ofASessionThisNodeOwnsAlready_asksNobody_andItsBuddyKeepsTheCopy() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = ownerOfS1WithBackupOnN2(c);

    // A second request of the container, racing the one that just brought the session in, asks for it again.
    Acquisition again = owner.engine.acquire("s1");

    assertThat(again.snapshot()).isEmpty();
    assertThat(again.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("just taken over"));

    assertThat(c.node("n2").backup("s1")).as("the buddy's copy is not migrated away").contains(Map.of("a", 1));
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 2))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(owner.listener.fenced).isEmpty();
    assertThat(c.node("n2").backup("s1")).contains(Map.of("a", 2));
  }

  @Test
  void aNodeTheMembershipDropped_isNotHandedASession_whichStaysWithItsOwner() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = ownerOfS1WithBackupOnN2(c);
    // n3 was dropped from the others' view (paused or cut off) and has not heard so: it still reaches them.
    c.cluster.crash(new NodeId("n3"));
    await().atMost(AWAIT).until(() -> !owner.engine.members().contains(new NodeId("n3")));

    Acquisition refused = c.node("n3").engine.acquire("s1");

    assertThat(refused.snapshot()).isEmpty();
    assertThat(refused.unavailable()).as("the session exists: the request must be retried, not given a new session")
        .hasValueSatisfying(why -> assertThat(why).contains("not a member of"));

    assertThat(owner.engine.owns("s1")).isTrue();
    assertThat(owner.listener.fenced).isEmpty();
    assertThat(owner.request("s1", (s, reads) -> s.setAttribute("a", 2))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(c.node("n2").backup("s1")).contains(Map.of("a", 2));
  }

  @Test
  void acquire_whileTheOwnerHangs_waitsUntilItIsDeclaredDead_andTheOwnersLaterWriteIsRefused() throws Exception {
    EngineCluster c = start();
    EngineCluster.Node owner = ownerOfS1WithBackupOnN2(c);
    c.network.hang(new NodeId("n1"));
    EngineCluster.Node n3 = c.node("n3");

    Acquisition whileHung = n3.engine.acquire("s1");
    assertThat(whileHung.snapshot()).as("nobody takes a session whose owner is still a member").isEmpty();
    assertThat(whileHung.unavailable()).as("the session exists: the request must be retried").isPresent();
    assertThat(c.node("n2").backup("s1")).as("the backup is not given away while its owner may still write").isPresent();

    c.cluster.crash(new NodeId("n1")); // failure detection declares it dead; the hung node itself hears nothing
    AtomicReference<Optional<SessionSnapshot>> taken = new AtomicReference<>(Optional.empty());
    await().atMost(AWAIT).until(() -> {
      taken.set(n3.engine.acquire("s1").snapshot());
      return taken.get().isPresent();
    });
    assertThat(taken.get().map(n3::decode)).contains(Map.of("a", 1));

    c.network.resume(new NodeId("n1"));
    owner.request("s1", (s, reads) -> s.setAttribute("a", 99));
    owner.engine.runMaintenance();

    await().atMost(AWAIT).untilAsserted(() -> assertThat(owner.listener.fenced).contains("s1"));
    assertThat(n3.engine.owns("s1")).isTrue();
  }

  @Test
  void acquire_ofASessionNobodyAnsweringHolds_whileAMemberIsSilent_isUnavailableNotAbsent() throws Exception {
    EngineCluster c = start();
    c.network.hang(new NodeId("n1"));

    Acquisition acquired = c.node("n3").engine.acquire("maybe-on-n1");

    assertThat(acquired.snapshot()).isEmpty();
    assertThat(acquired.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("[n1] did not answer"));
  }

  /** n1 owns session s1, holding a=1, and n2 holds its backup. */
  private static EngineCluster.Node ownerOfS1WithBackupOnN2(EngineCluster c) {
    EngineCluster.Node owner = c.node("n1");
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", 1));
    await().atMost(AWAIT).until(() -> c.node("n2").backup("s1").isPresent());
    return owner;
  }

  @Test
  void acquire_unknownSession_isEmpty() throws Exception {
    EngineCluster c = start();

    assertThat(c.node("n3").engine.acquire("nobody-has-it")).isEqualTo(Acquisition.NOWHERE);
  }
}
