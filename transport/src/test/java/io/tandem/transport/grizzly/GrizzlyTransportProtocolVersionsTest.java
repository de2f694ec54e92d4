package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.transport.membership.ProbeOutcome;
import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 28, "Operating Tandem": two nodes speak the highest protocol version they share, and nodes that share none
 * refuse each other by name. Found by an operator: a node one version ahead was refused by the frame decoder as a
 * protocol violation, the other side's probe took the closed connection for an unreachable member, and the new node
 * started alone. Real sockets, two transports of the same code offering different ranges.
 */
class GrizzlyTransportProtocolVersionsTest {
  private static final String CLUSTER = "versions";
  private static final byte[] SECRET = "the-right-shared-secret".getBytes(StandardCharsets.UTF_8);
  /** The lower id dials. */
  private static final NodeId DIALER = new NodeId("a-dialer");
  private static final NodeId ACCEPTOR = new NodeId("b-acceptor");

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Logger transportLog = Logger.getLogger(GrizzlyTransport.class.getName());
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Handler collecting = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
        warnings.add(record.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void captureLog() {
    transportLog.addHandler(collecting);
  }

  @AfterEach
  void closeAll() throws Exception {
    transportLog.removeHandler(collecting);
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static ProtocolVersions range(int lowest, int highest) {
    return new ProtocolVersions(lowest, highest);
  }

  private GrizzlyTransport start(NodeId id, ProtocolVersions versions) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(
        GrizzlyTransportConfig.loopback(CLUSTER, id, SECRET, Duration.ofSeconds(2)).withProtocolVersions(versions));
    toClose.add(transport);
    transport.start((from, request) -> CompletableFuture.completedFuture(new Message.Ack(1, 2)));
    return transport;
  }

  private static void meet(GrizzlyTransport a, GrizzlyTransport b) {
    MembershipView view = new MembershipView(1, List.of(new Member(a.localNode(), a.localAddress()), new Member(b.localNode(), b.localAddress())));
    a.updatePeers(view);
    b.updatePeers(view);
  }

  /** Both directions carry a request and its answer, and both ends say which version their connection speaks. */
  private static void assertSpeak(int version, GrizzlyTransport dialer, GrizzlyTransport acceptor) throws Exception {
    assertThat(dialer.request(ACCEPTOR, new Message.Locate("s1")).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, 2));
    assertThat(acceptor.request(DIALER, new Message.Locate("s2")).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, 2));
    assertThat(dialer.protocolVersion(ACCEPTOR)).isEqualTo(OptionalInt.of(version));
    assertThat(acceptor.protocolVersion(DIALER)).isEqualTo(OptionalInt.of(version));
    assertThat(dialer.stats().refusals()).allSatisfy((cause, n) -> assertThat(n).as(cause.name()).isZero());
    assertThat(acceptor.stats().refusals()).allSatisfy((cause, n) -> assertThat(n).as(cause.name()).isZero());
  }

  @Test
  void rangesFiveAndFiveToSix_speakFive_whicheverEndDials() throws Exception {
    GrizzlyTransport dialer = start(DIALER, range(5, 5));
    GrizzlyTransport acceptor = start(ACCEPTOR, range(5, 6));
    meet(dialer, acceptor);

    assertSpeak(5, dialer, acceptor);
  }

  @Test
  void rangesFiveToSixAndFive_speakFive() throws Exception {
    GrizzlyTransport dialer = start(DIALER, range(5, 6));
    GrizzlyTransport acceptor = start(ACCEPTOR, range(5, 5));
    meet(dialer, acceptor);

    assertSpeak(5, dialer, acceptor);
  }

  @Test
  void rangesFiveToSixOnBothEnds_speakSix() throws Exception {
    GrizzlyTransport dialer = start(DIALER, range(5, 6));
    GrizzlyTransport acceptor = start(ACCEPTOR, range(5, 6));
    meet(dialer, acceptor);

    assertSpeak(6, dialer, acceptor);
  }

  @Test
  void rangesFiveAndSix_refuseEachOtherByName_onBothEnds_neverAsABadFrame() throws Exception {
    GrizzlyTransport dialer = start(DIALER, range(5, 5));
    GrizzlyTransport acceptor = start(ACCEPTOR, range(6, 6));
    meet(dialer, acceptor);

    assertThatThrownBy(() -> dialer.request(ACCEPTOR, new Message.Locate("s")).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(PeerUnreachableException.class);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(acceptor.stats().refusals(RefusalCause.PROTOCOL_VERSION)).isPositive();
      assertThat(dialer.stats().refusals(RefusalCause.PROTOCOL_VERSION)).isPositive();
    });
    for (GrizzlyTransport end : List.of(dialer, acceptor)) {
      assertThat(end.stats().refusals(RefusalCause.PROTOCOL_VIOLATION)).isZero();
      assertThat(end.stats().refusals(RefusalCause.REFUSED_FRAME)).isZero();
      assertThat(end.stats().authenticationFailures()).isEqualTo(end.stats().refusals(RefusalCause.PROTOCOL_VERSION));
    }
    assertThat(dialer.protocolVersion(ACCEPTOR)).isEmpty();
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("peer a-dialer").contains("speaks protocol version 5,")
        .contains("this node speaks 6: no version in common"));
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("peer b-acceptor").contains("speaks protocol version 6,")
        .contains("this node speaks 5: no version in common"));
  }

  @Test
  void probe_ofAMemberSharingNoVersion_isRefusedByNameBothWays() throws Exception {
    GrizzlyTransport five = start(DIALER, range(5, 5));
    GrizzlyTransport six = start(ACCEPTOR, range(6, 6));

    ProbeOutcome fiveOfSix = five.probe(new Member(ACCEPTOR, six.localAddress())).get(5, TimeUnit.SECONDS);
    ProbeOutcome sixOfFive = six.probe(new Member(DIALER, five.localAddress())).get(5, TimeUnit.SECONDS);

    assertThat(fiveOfSix.status()).isEqualTo(ProbeOutcome.Status.REFUSED);
    assertThat(fiveOfSix.refusal()).isEqualTo(ProbeOutcome.Refusal.PROTOCOL_VERSION);
    assertThat(fiveOfSix.detail()).contains("speaks protocol version 6,").contains("this node speaks 5");
    assertThat(sixOfFive.refusal()).isEqualTo(ProbeOutcome.Refusal.PROTOCOL_VERSION);
    assertThat(five.refusedMembers()).containsKey(ACCEPTOR);
    assertThat(six.refusedMembers()).containsKey(DIALER);
    // The probed end counted the prober's hello as a refusal by version, not as a bad frame.
    assertThat(six.stats().refusals(RefusalCause.PROTOCOL_VERSION)).isEqualTo(1);
    assertThat(five.stats().refusals(RefusalCause.PROTOCOL_VERSION)).isEqualTo(1);
    assertThat(six.stats().refusals(RefusalCause.PROTOCOL_VIOLATION) + five.stats().refusals(RefusalCause.PROTOCOL_VIOLATION)).isZero();
  }

  @Test
  void version4Hello_isRefusedByName_andAnsweredWithThisNodesRange() throws Exception {
    GrizzlyTransport node = start(ACCEPTOR, ProtocolVersions.spoken());
    String[] hostPort = node.localAddress().split(":");
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5000);
      socket.setSoTimeout(5000);
      socket.getOutputStream().write(Version4Acceptor.hello(CLUSTER, "old-node", new byte[16], new byte[0]));

      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] answer = new byte[in.readInt()];
      in.readFully(answer);
      assertThat(answer[0]).as("framed for any version to read").isEqualTo((byte) 5);
      ByteBuffer payload = ByteBuffer.wrap(answer, 11, answer.length - 11);
      assertThat(payload.getInt()).as("lowest").isEqualTo(5);
      assertThat(payload.getInt()).as("highest").isEqualTo(6);
      assertThat(in.read()).as("closed after the answer").isEqualTo(-1);
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> node.stats().refusals(RefusalCause.PROTOCOL_VERSION) == 1);
    assertThat(node.stats().refusals(RefusalCause.PROTOCOL_VIOLATION)).isZero();
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("peer old-node")
        .contains("speaks protocol version 4 only (a release before versions were negotiated)").contains("this node speaks 5 to 6"));
  }

  @Test
  void probe_ofAVersion4Member_whichClosesOnAVersion5Hello_isRefusedByName_notUnreachable() throws Exception {
    GrizzlyTransport node = start(ACCEPTOR, ProtocolVersions.spoken());
    Version4Acceptor old = new Version4Acceptor(CLUSTER, "old-node");
    toClose.add(old);

    ProbeOutcome outcome = node.probe(new Member(new NodeId("old-node"), old.address())).get(10, TimeUnit.SECONDS);

    assertThat(old.closedUnanswered.get()).as("the version-5 hello, closed on as version 4 did").isEqualTo(1);
    assertThat(old.challenged.get()).as("then version 4's own hello, answered").isEqualTo(1);
    assertThat(outcome.status()).isEqualTo(ProbeOutcome.Status.REFUSED);
    assertThat(outcome.refusal()).isEqualTo(ProbeOutcome.Refusal.PROTOCOL_VERSION);
    assertThat(outcome.detail()).contains("speaks protocol version 4 only").contains("this node speaks 5 to 6");
    assertThat(node.refusedMembers()).containsKey(new NodeId("old-node"));
  }
}
