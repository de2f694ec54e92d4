package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.FreePorts;
import io.tandem.core.testing.InMemoryCluster;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fast death detection over real sockets (membership in memory, so the view lists a dead member for as long as the
 * test wants): a peer whose connection closed and whose port then refuses a redial is dropped from replication at
 * once, and SYNC writes move on to the ring's next buddy while the view still lists it, or, with no other member, wait
 * for the view to drop it before they answer as a node alone (a member the view lists does not make it alone).
 * A peer that hangs (connection open, no answers), or whose connection closes while its port still accepts, is not.
 * A peer that stops running for longer than the ack timeout and then goes on (a collection pause under a CPU cap)
 * is waited for: its acknowledgement confirms the write, and the owner does not re-send the session to it.
 */
class EngineOverGrizzlyDeathDetectionTest {
  private static final byte[] SECRET = "death-detection-secret-1234".getBytes(StandardCharsets.UTF_8);
  private final InMemoryCluster cluster = new InMemoryCluster();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final Map<String, Object> attributes = new ConcurrentHashMap<>(Map.of("user", "alice"));
  /**
   * When s1 was created: now, on the engines' clock. Created in 1970, a session taken over from its backup (held as
   * bytes until the container attaches it) was expired by the next maintenance tick, a second at most after the
   * takeover, and a test that looked at it after that tick failed.
   */
  private final long createdAt = System.currentTimeMillis();

  /** One node: its engine and the transport under it. */
  private record Node(ReplicationEngine engine, GrizzlyTransport transport, NodeId id) {}

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    cluster.close();
  }

  private Node start(String id, ReplicationConfig config) throws Exception {
    return start(id, config, address -> address);
  }

  /** @param advertise the address the membership gives for the node's listener (a proxy in front of it, say) */
  private Node start(String id, ReplicationConfig config, Function<String, String> advertise) throws Exception {
    NodeId node = new NodeId(id);
    int port = FreePorts.loopback();
    GrizzlyTransportConfig base = GrizzlyTransportConfig.loopback("death", node, SECRET, config.ackTimeout());
    GrizzlyTransport transport = new GrizzlyTransport(new GrizzlyTransportConfig("death", node, "127.0.0.1", port, SECRET,
        base.requestTimeout(), base.connectTimeout(), base.maxFrameSize(), base.maxQueuedBytesPerPeer(),
        base.reconnectBackoffMin(), base.reconnectBackoffMax(), null));
    ReplicationEngine engine = new ReplicationEngine(config, transport,
        cluster.join(node, advertise.apply("127.0.0.1:" + port)), AttributeCodecs.create(config.codec(),
            ClassFilter.defaultsOnly(), config.codecLimits()), Clock.systemUTC(), ReplicationListener.NONE);
    engine.start();
    closing.add(engine);
    return new Node(engine, transport, node);
  }

  private SessionSource source() {
    return new SessionSource() {
      @Override
      public SessionMetadata metadata() {
        return SessionMetadata.created(createdAt, 1800);
      }

      @Override
      public Set<String> attributeNames() {
        return Set.copyOf(attributes.keySet());
      }

      @Override
      public Object attribute(String name) {
        return attributes.get(name);
      }
    };
  }

  private FlushOutcome write(ReplicationEngine engine, String value) {
    attributes.put("user", value);
    engine.attributeChanged("s1", "user");
    return engine.flush("s1", Set.of());
  }

  /**
   * The redial check the maintenance tick uses in quarantine, without blocking it (docs/protocol.md 8.5; that the
   * tick does not wait is {@code SilentDepartedMemberDuringQuarantineTest}'s): a refused port says so, a listening one
   * does not.
   */
  @Test
  void refusalOf_refusedWhereNothingListens_notWhereAListenerAccepts() throws Exception {
    Node a = start("a", patient());
    int closedPort;
    try (java.net.ServerSocket gone = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = gone.getLocalPort();
    }
    assertThat(a.transport().refusalOf(new io.tandem.core.spi.Member(new NodeId("gone"), "127.0.0.1:" + closedPort, 1))
        .get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    try (java.net.ServerSocket listening = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      assertThat(a.transport().refusalOf(new io.tandem.core.spi.Member(new NodeId("alive"), "127.0.0.1:"
          + listening.getLocalPort(), 1)).get(10, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
    }
  }

  /** A short SYNC wait (0.8 s): a write that waits for a view that does not come answers UNCONFIRMED soon. */
  private static ReplicationConfig brief() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofMillis(500)).build();
  }

  /** A long settle timeout: a write that waited for the view instead would come back UNCONFIRMED, seconds later. */
  private static ReplicationConfig patient() {
    return ReplicationConfig.builder().ackTimeout(Duration.ofSeconds(2)).settleTimeout(Duration.ofSeconds(5)).build();
  }

  @Test
  void killedBuddy_isDroppedAtOnce_andTheSyncWriteIsAcknowledgedByTheNextBuddyWhileTheViewStillListsIt() throws Exception {
    Node a = start("a", patient());
    Node b = start("b", patient());
    Node c = start("c", patient());
    await().atMost(Duration.ofSeconds(10)).until(() -> a.engine().buddy().equals(java.util.Optional.of(b.id()))
        && b.engine().buddy().isPresent() && c.engine().buddy().isPresent());
    a.engine().sessionCreated("s1", source());
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(b.engine().backupOf("s1")).isPresent();

    b.transport().close(); // as SIGKILL does: its connections close and its port refuses

    assertThat(write(a.engine(), "alice-2")).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(cluster.currentView().contains(b.id())).as("the view never dropped b").isTrue();
    assertThat(a.engine().members()).contains(b.id());
    assertThat(a.engine().buddy()).contains(c.id());
    assertThat(c.engine().backupOf("s1")).hasValueSatisfying(s -> assertThat(s.version()).isGreaterThanOrEqualTo(2));
    assertThat(a.transport().refusedRedials()).isEqualTo(1);
  }

  /**
   * A refused redial drops the buddy from replication at once, but the view still lists it: the owner is not alone
   * until the view says so (the contract; docs/protocol.md 8.3). A write waits within its SYNC wait for the view, and
   * is answered as alone once it drops the dead member; a 503 if it does not in time.
   */
  @Test
  void twoNodes_killedBuddy_aWriteWaitsForTheViewToDropIt_thenAnswersAsAlone() throws Exception {
    Pair pair = pairWithS1(patient(), address -> address);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    b.transport().close();
    java.util.concurrent.CompletableFuture<FlushOutcome> written =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> write(a.engine(), "alice-2"));
    await().atMost(Duration.ofSeconds(5)).until(() -> a.transport().refusedRedials() >= 1);
    assertThat(written).as("not alone while the view lists the buddy").isNotDone();
    cluster.crash(b.id());

    assertThat(written.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(FlushOutcome.NO_BUDDY);
    assertThat(a.engine().sessionsWithoutBackup()).isEqualTo(1);
  }

  @Test
  void twoNodes_killedBuddy_theOwnerAnswers503_whileTheViewStillListsItPastTheWait() throws Exception {
    Pair pair = pairWithS1(brief(), address -> address);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    b.transport().close();

    assertThat(write(a.engine(), "alice-2")).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(cluster.currentView().contains(b.id())).isTrue();
  }

  @Test
  void twoNodes_killedOwner_itsBuddyPromotesTheBackup_andWritesAsAloneOnceTheViewDropsTheDeadOwner() throws Exception {
    Pair pair = pairWithS1(brief(), address -> address);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    a.transport().close();

    assertThat(b.engine().promote("s1")).hasValueSatisfying(s -> assertThat(s.epoch()).isEqualTo(2));
    assertThat(b.engine().attach("s1", source())).isPresent();
    assertThat(write(b.engine(), "alice-2")).as("the view still lists the owner").isEqualTo(FlushOutcome.UNCONFIRMED);
    cluster.crash(a.id());
    await().atMost(Duration.ofSeconds(10)).until(() -> write(b.engine(), "alice-3") == FlushOutcome.NO_BUDDY);
  }

  /**
   * Regression test for takeovers answered 503 during a kill (the 3-node kill-owner drill counted them, each one a user
   * coming back after its think time): the buddy asked the owner it still saw in the view for the session, the
   * request failed at once on the closed connection, and the takeover was "unavailable" although the redial check
   * was about to say the owner was gone. The takeover now waits for that verdict, briefly, and promotes its backup.
   */
  @Test
  void twoNodes_killedOwner_aRequestAtItsBuddyRightAfterTheKill_takesTheBackupOverInsteadOf503() throws Exception {
    Pair pair = pairWithS1(patient(), address -> address);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    a.transport().close();
    io.tandem.core.replicator.Acquisition acquired = b.engine().acquire("s1", "a");

    assertThat(acquired.unavailable()).isEmpty();
    assertThat(acquired.snapshot()).hasValueSatisfying(s -> assertThat(s.epoch()).isEqualTo(2));
    assertThat(b.engine().owns("s1")).isTrue();
  }

  /** What a quarantined node asks of an owner the view dropped before its connection said anything. */
  @Test
  void refusesConnections_onlyWhereNothingListens() throws Exception {
    Node a = start("a", patient());
    Node b = start("b", patient());
    io.tandem.core.spi.Member bAsMember = new io.tandem.core.spi.Member(b.id(), b.transport().localAddress());
    assertThat(a.transport().refusesConnections(bAsMember)).as("b listens").isFalse();
    assertThat(a.transport().refusesConnections(new io.tandem.core.spi.Member(b.id(), "not an address"))).isFalse();

    b.transport().close();

    assertThat(a.transport().refusesConnections(bAsMember)).as("nothing listens at b's address now").isTrue();
  }

  @Test
  void hungBuddy_connectionOpenAndNoAnswers_isNotSuspected_theWriteIsUnconfirmed() throws Exception {
    ReplicationConfig quick = ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofMillis(300)).build();
    PairBehindRelay pair = pairWithBBehindARelay(quick);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    pair.relay().stall();

    assertThat(write(a.engine(), "alice-2")).isEqualTo(FlushOutcome.UNCONFIRMED);
    assertThat(a.engine().buddy()).contains(b.id());
    assertThat(a.transport().refusedRedials()).isZero();
  }

  /**
   * Regression test for SYNC writes that re-sent the whole session to a buddy that was only slow: after {@code
   * ackTimeout} the owner marked the session unprotected and sent it again in full to the same buddy, which under a
   * CPU cap doubled the work of the node that was behind (the load benchmark counted hundreds of such timeouts a
   * second after its collection pauses). The buddy here stops for three ack timeouts with its connection open.
   */
  @Test
  void slowBuddy_pausedPastTheAckTimeout_isWaitedFor_andTheSessionIsNotResentInFull() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().ackTimeout(Duration.ofMillis(200))
        .settleTimeout(Duration.ofSeconds(5)).build();
    PairBehindRelay pair = pairWithBBehindARelay(config);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    long fullsBefore = a.engine().stats().fullsSent();
    long deltasBefore = a.engine().stats().deltasSent();

    pair.relay().pause();
    Thread resumer = new Thread(() -> {
      try {
        Thread.sleep(600);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      pair.relay().resume();
    });
    resumer.start();
    FlushOutcome outcome = write(a.engine(), "alice-2");
    resumer.join();

    assertThat(outcome).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(a.engine().stats().fullsSent()).as("no full re-send").isEqualTo(fullsBefore);
    assertThat(a.engine().stats().deltasSent()).isEqualTo(deltasBefore + 1);
    assertThat(a.engine().stats().ackTimeouts()).as("not given up on").isZero();
    assertThat(a.engine().stats().slowAcks()).as("counted slow").isEqualTo(1);
    assertThat(b.engine().backupOf("s1")).hasValueSatisfying(s -> assertThat(s.version()).isEqualTo(2));
    assertThat(a.engine().sessionsWithoutBackup()).isZero();
  }

  /**
   * Regression: in ASYNC mode an update not acknowledged within {@code ackTimeout} was counted failed and its
   * session re-sent in full to the same buddy; the load benchmark counted over a thousand such re-sends per step at
   * 2,800 users, each adding to the backlog of a buddy that was only behind. The buddy here stops for three ack
   * timeouts with its connection open: its late acknowledgement is taken, and nothing is re-sent.
   */
  @Test
  void slowBuddy_async_pausedPastTheAckTimeout_isWaitedFor_andTheSessionIsNotResentInFull() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().mode(ReplicationMode.ASYNC).ackTimeout(Duration.ofMillis(200))
        .settleTimeout(Duration.ofSeconds(5)).build();
    PairBehindRelay pair = pairWithBBehindARelay(config);
    Node a = pair.a();
    Node b = pair.b();
    a.engine().flush("s1", Set.of());
    await().atMost(Duration.ofSeconds(10)).until(() -> b.engine().backupOf("s1").isPresent());
    long fullsBefore = a.engine().stats().fullsSent();

    pair.relay().pause();
    assertThat(write(a.engine(), "alice-2")).isEqualTo(FlushOutcome.QUEUED);
    Thread.sleep(600); // three ack timeouts, the connection open
    pair.relay().resume();

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(b.engine().backupOf("s1")).hasValueSatisfying(s -> assertThat(s.version()).isEqualTo(2)));
    await().atMost(Duration.ofSeconds(10)).until(() -> a.engine().sessionsWithoutBackup() == 0);
    assertThat(a.engine().stats().ackTimeouts()).as("not given up on").isZero();
    assertThat(a.engine().stats().fullsSent()).as("no full re-send").isEqualTo(fullsBefore);
  }

  /**
   * A node that leaves hands its sessions to its buddy and waits for the handoff as long as the container allows,
   * not one ack timeout: under load the buddy may answer late, and a handoff given up on leaves the sessions to the
   * backups (in ASYNC mode, behind) and to the race between the handoff still arriving and the view change.
   */
  @Test
  void gracefulHandoff_toABuddyPausedPastTheAckTimeout_isWaitedFor() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().ackTimeout(Duration.ofMillis(200))
        .settleTimeout(Duration.ofSeconds(5)).build();
    PairBehindRelay pair = pairWithBBehindARelay(config);
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);

    pair.relay().pause();
    java.util.concurrent.CompletableFuture<Integer> handed =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> a.engine().handOff(Duration.ofSeconds(10)));
    Thread.sleep(600); // three ack timeouts
    pair.relay().resume();

    assertThat(handed.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(b.engine().owns("s1")).isTrue();
    assertThat(a.engine().owns("s1")).isFalse();
  }

  private record Pair(Node a, Node b) {}

  /** Nodes a and b, each the other's buddy (b's listener advertised as {@code advertiseB} says), s1 created on a. */
  private Pair pairWithS1(ReplicationConfig config, Function<String, String> advertiseB) throws Exception {
    Node a = start("a", config);
    Node b = start("b", config, advertiseB);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.engine().buddy().isPresent() && b.engine().buddy().isPresent());
    a.engine().sessionCreated("s1", source());
    return new Pair(a, b);
  }

  /** {@link #pairWithS1} with b behind a relay that can stall it. */
  private record PairBehindRelay(Node a, Node b, StallingProxy relay) {}

  private PairBehindRelay pairWithBBehindARelay(ReplicationConfig config) throws Exception {
    List<StallingProxy> proxy = new ArrayList<>();
    Pair pair = pairWithS1(config, address -> behindProxy(address, proxy));
    return new PairBehindRelay(pair.a(), pair.b(), proxy.get(0));
  }

  private StallingProxy relayTo(String address) throws java.io.IOException {
    int colon = address.lastIndexOf(':');
    StallingProxy relay = new StallingProxy(
        new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
    closing.add(relay);
    return relay;
  }

  /** Advertises a relay in front of {@code address} instead of the node's own listener, and keeps it in {@code proxy}. */
  private String behindProxy(String address, List<StallingProxy> proxy) {
    try {
      StallingProxy relay = relayTo(address);
      proxy.add(relay);
      return relay.address();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void buddyWhoseConnectionClosesWhileItsPortStillAccepts_isNotSuspected() throws Exception {
    PairBehindRelay pair = pairWithBBehindARelay(patient());
    Node a = pair.a();
    Node b = pair.b();
    assertThat(a.engine().flush("s1", Set.of())).isEqualTo(FlushOutcome.REPLICATED);
    long dialed = a.transport().stats().connectionsDialed();

    pair.relay().dropConnections();

    // a redials through the relay, which still accepts; the check's own connect found it listening.
    await().atMost(Duration.ofSeconds(10)).until(() -> a.transport().stats().connectionsDialed() > dialed && a.transport().connectedTo(b.id()));
    assertThat(write(a.engine(), "alice-2")).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(a.engine().buddy()).contains(b.id());
    assertThat(a.transport().refusedRedials()).isZero();
  }
}
