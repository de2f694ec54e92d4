package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.ProtocolVersions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Peers that lack the secret, send garbage, stop reading: refused and counted, and the node keeps serving. */
class GrizzlyTransportHostilePeerTest {
  private static final String CLUSTER = "hostile";
  private static final byte[] SECRET = "the-right-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId SERVER = new NodeId("m-server");
  private static final NodeId FRIEND = new NodeId("a-friend");
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static RequestHandler echo() {
    return (from, request) -> CompletableFuture.completedFuture(new Message.Ack(7, 7));
  }

  private GrizzlyTransport start(GrizzlyTransportConfig config, RequestHandler handler) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(config);
    toClose.add(transport);
    transport.start(handler);
    return transport;
  }

  private GrizzlyTransport server() throws Exception {
    return start(GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofMillis(500)), echo());
  }

  private RawPeer raw(GrizzlyTransport target, String id) throws Exception {
    RawPeer peer = new RawPeer(target.localAddress(), new NodeId(id));
    toClose.add(peer);
    return peer;
  }

  /** A well-behaved member, to prove the node goes on serving others. */
  private void assertStillServes(GrizzlyTransport server) throws Exception {
    GrizzlyTransport friend = start(GrizzlyTransportConfig.loopback(CLUSTER, FRIEND, SECRET, Duration.ofSeconds(2)), echo());
    MembershipView view = new MembershipView(1, List.of(new Member(SERVER, server.localAddress()), new Member(FRIEND, friend.localAddress())));
    friend.updatePeers(view);
    server.updatePeers(view);
    assertThat(friend.request(SERVER, new Message.Locate("still-there")).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(7, 7));
  }

  @Test
  void peerWithoutTheSecret_isRefusedAndCounted() throws Exception {
    GrizzlyTransport server = server();
    RawPeer intruder = raw(server, "intruder");

    intruder.authenticate(CLUSTER, "a-guessed-wrong-secret!".getBytes(StandardCharsets.UTF_8));

    await().atMost(Duration.ofSeconds(5)).until(intruder::isClosedByPeer);
    assertThat(server.stats().authenticationFailures()).isEqualTo(1);
    assertStillServes(server);
  }

  @Test
  void memberWithAnotherSecret_cannotReachTheServer() throws Exception {
    GrizzlyTransport server = server();
    GrizzlyTransport impostor = start(
        GrizzlyTransportConfig.loopback(CLUSTER, new NodeId("a-impostor"), "another-secret-entirely".getBytes(StandardCharsets.UTF_8), Duration.ofMillis(500)),
        echo());
    MembershipView view = new MembershipView(1, List.of(new Member(SERVER, server.localAddress()), new Member(impostor.localNode(), impostor.localAddress())));
    impostor.updatePeers(view);

    assertThatThrownBy(() -> impostor.request(SERVER, new Message.Locate("x")).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(PeerUnreachableException.class);
    assertThat(impostor.stats().authenticationFailures()).isPositive();
  }

  @Test
  void requestBeforeAuthenticating_isRefused() throws Exception {
    GrizzlyTransport server = server();
    RawPeer rude = raw(server, "rude");

    rude.send(new Envelope(5, false, new Message.Locate("no-hello")));

    await().atMost(Duration.ofSeconds(5)).until(rude::isClosedByPeer);
    assertThat(server.stats().refusals(RefusalCause.PROTOCOL_VIOLATION)).isEqualTo(1);
    assertThat(server.stats().authenticationFailures()).as("not a peer that failed to prove the secret").isZero();
  }

  @Test
  void otherClusterOrProtocolVersion_isRefusedNamingIt() throws Exception {
    GrizzlyTransport server = server();
    RawPeer stranger = raw(server, "stranger");
    RawPeer future = raw(server, "future");

    stranger.send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, "another-cluster", stranger.id, io.tandem.core.session.Blob.EMPTY, io.tandem.core.session.Blob.EMPTY));
    future.send(new Message.Handshake(ProtocolVersions.only(MessageCodec.PROTOCOL_VERSION + 1), CLUSTER, future.id, io.tandem.core.session.Blob.EMPTY, io.tandem.core.session.Blob.EMPTY));

    await().atMost(Duration.ofSeconds(5)).until(stranger::isClosedByPeer);
    assertThat(((Message.Handshake) future.read().message()).versions())
        .as("a peer of another version is answered with this node's range before the close").isEqualTo(ProtocolVersions.IMPLEMENTED);
    await().atMost(Duration.ofSeconds(5)).until(future::isClosedByPeer);
    assertThat(server.stats().authenticationFailures()).isEqualTo(2);
  }

  @Test
  void authenticatedPeerSendingBadFrames_getsNacksAndTheConnectionGoesOn() throws Exception {
    GrizzlyTransport server = server();
    RawPeer peer = raw(server, "peer");
    peer.authenticate(CLUSTER, SECRET);

    byte[] malformed = MessageCodec.encodeToBytes(new Envelope(11, false, new Message.Locate("abc")));
    malformed[15 + 3] = 99; // the string's length now overruns the payload
    peer.sendRaw(malformed);
    Envelope answer = peer.read();
    assertThat(answer.correlationId()).isEqualTo(11);
    assertThat(answer.message()).isInstanceOfSatisfying(Message.Nack.class, n -> {
      assertThat(n.reason()).isEqualTo(Message.Nack.Reason.REFUSED);
      assertThat(n.detail()).contains("needs");
    });

    byte[] unknownType = MessageCodec.encodeToBytes(new Envelope(12, false, new Message.Locate("abc")));
    unknownType[5] = (byte) 250;
    peer.sendRaw(unknownType);
    assertThat(peer.read().message()).isInstanceOfSatisfying(Message.Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Message.Nack.Reason.UNSUPPORTED));

    peer.send(new Envelope(13, false, new Message.Locate("fine")));
    assertThat(peer.read()).isEqualTo(new Envelope(13, true, new Message.Ack(7, 7)));
    assertThat(server.stats().refusedFrames()).isEqualTo(2);
  }

  @Test
  void oversizedFrame_isSkippedUnbufferedAndTheNextFrameIsServed() throws Exception {
    GrizzlyTransport server = start(
        GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofMillis(500)).withLimits(64 * 1024, 1 << 20), echo());
    RawPeer peer = raw(server, "peer");
    peer.authenticate(CLUSTER, SECRET);
    byte[] body = new byte[200 * 1024];
    ByteBuffer header = ByteBuffer.allocate(4 + 11).putInt(11 + body.length).put((byte) 1).put((byte) 9).put((byte) 0).putLong(21);

    peer.sendRaw(header.array());
    peer.sendRaw(body);
    peer.send(new Envelope(22, false, new Message.Locate("after")));

    assertThat(peer.read()).isEqualTo(new Envelope(22, true, new Message.Ack(7, 7)));
    assertThat(server.stats().refusedFrames()).isEqualTo(1);
  }

  @Test
  void garbageAndTruncatedStreams_closeThatConnectionOnly() throws Exception {
    GrizzlyTransport server = server();
    RawPeer garbage = raw(server, "garbage");
    garbage.authenticate(CLUSTER, SECRET);
    RawPeer truncated = raw(server, "truncated");
    truncated.authenticate(CLUSTER, SECRET);

    garbage.sendRaw(new byte[] {0, 0, 0, 1, 42, 42, 42, 42});
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, false, new Message.Locate("cut")));
    truncated.sendRaw(java.util.Arrays.copyOf(frame, frame.length - 3));
    truncated.close();

    await().atMost(Duration.ofSeconds(5)).until(garbage::isClosedByPeer);
    assertThat(server.stats().corruptConnections()).isEqualTo(1);
    assertStillServes(server);
  }

  @Test
  void peerThatStopsReading_boundsTheSendersMemory_andSyncSendsTimeOut() throws Exception {
    long bound = 1 << 20;
    GrizzlyTransport sender = start(
        GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofMillis(500)).withLimits(64 * 1024, bound), echo());
    RawPeer stalled = raw(sender, "stalled");
    stalled.socket.setReceiveBufferSize(4096);
    stalled.authenticate(CLUSTER, SECRET);
    await().atMost(Duration.ofSeconds(5)).until(() -> sender.stats().requestsServed() >= 0 && sendable(sender, stalled.id));

    Message big = new Message.Locate("x".repeat(32 * 1024));
    List<CompletableFuture<Message>> replies = new ArrayList<>();
    // Taken as each request returns: on a loaded machine the loop outlasts the 500 ms timeout, and by its end the
    // accepted requests have failed too, so they cannot be told from the refused ones afterwards.
    List<CompletableFuture<Message>> accepted = new ArrayList<>();
    int refused = 0;
    long maxQueued = 0;
    for (int i = 0; i < 2000; i++) {
      CompletableFuture<Message> reply = sender.request(stalled.id, big);
      replies.add(reply);
      if (reply.isCompletedExceptionally()) {
        refused++;
      } else {
        accepted.add(reply);
      }
      maxQueued = Math.max(maxQueued, sender.queuedBytes(stalled.id));
    }

    assertThat(refused).isPositive();
    assertThat(accepted).isNotEmpty();
    assertThat(maxQueued).isLessThanOrEqualTo(bound);
    assertThat(sender.stats().backPressureRefusals()).isEqualTo(refused);
    assertThatThrownBy(() -> accepted.get(0).get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
    assertThat(replies.stream().filter(CompletableFuture::isCompletedExceptionally).map(GrizzlyTransportHostilePeerTest::cause))
        .allSatisfy(c -> assertThat(c).isInstanceOfAny(BackPressureException.class, TimeoutException.class));
  }

  private static boolean sendable(GrizzlyTransport sender, NodeId peer) {
    CompletableFuture<Message> probe = sender.request(peer, new Message.Ack(0, 0));
    return !probe.isDone() || !(cause(probe) instanceof PeerUnreachableException);
  }

  private static Throwable cause(CompletableFuture<Message> future) {
    try {
      future.getNow(null);
      return null;
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    }
  }
}
