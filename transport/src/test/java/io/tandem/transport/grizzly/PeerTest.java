package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.transport.grizzly.WaitingRequests.Waiting;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.glassfish.grizzly.Connection;
import org.junit.jupiter.api.Test;

/** One peer's state machines, driven step by step without sockets: what each transition leaves and hands back. */
class PeerTest {
  private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 4000);
  private final Peer peer = new Peer(new NodeId("b"));

  /** A Grizzly connection that answers only its peer's address: enough for a {@link PeerConnection}'s bookkeeping. */
  private static PeerConnection connection(boolean dialer) {
    Connection<?> socket = (Connection<?>) Proxy.newProxyInstance(PeerTest.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getPeerAddress" -> ADDRESS;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> null;
        });
    OutboundQueue outbound = new OutboundQueue(new OutboundQueue.Sink() {
      @Override
      public void schedule(Runnable flush) {}

      @Override
      public void write(ByteBuffer batch, Runnable written) {}
    }, new LongAdder(), new LongAdder(), new LongAdder());
    return new PeerConnection(socket, outbound, dialer, new NodeId("b"), Blob.EMPTY, 0, false);
  }

  private static Waiting request() {
    return new Waiting(new Message.Locate("s"), new CompletableFuture<>(), Duration.ofSeconds(1));
  }

  private PeerConnection ready() {
    PeerConnection connection = connection(false);
    peer.ready(connection);
    return connection;
  }

  @Test
  void dial_fromConnectingToHandshakingToReady_admitsNoSecondDialOnTheWay() {
    peer.joined(ADDRESS);
    assertThat(peer.startDial()).isEqualTo(ADDRESS);
    assertThat(peer.startDial()).as("connecting").isNull();

    PeerConnection dialed = connection(true);
    assertThat(peer.dial.connected(ADDRESS, dialed)).isTrue();
    assertThat(peer.dial.state()).isEqualTo(PeerDial.State.HANDSHAKING);
    assertThat(peer.startDial()).as("handshaking").isNull();

    peer.ready(dialed);
    assertThat(peer.state()).isEqualTo(Peer.State.READY);
    assertThat(peer.dial.state()).isEqualTo(PeerDial.State.IDLE);
    assertThat(peer.startDial()).as("ready").isNull();
  }

  @Test
  void dial_connectFailed_isIdle_andBacksOffUpToTheMaximum_untilReady() {
    peer.joined(ADDRESS);
    peer.startDial();
    peer.dial.failed(ADDRESS);
    assertThat(peer.dial.state()).isEqualTo(PeerDial.State.IDLE);
    Duration min = Duration.ofMillis(100);
    Duration max = Duration.ofMillis(300);
    assertThat(peer.dial.nextBackoff(min, max)).isEqualTo(min);
    assertThat(peer.dial.nextBackoff(min, max)).isEqualTo(Duration.ofMillis(200));
    assertThat(peer.dial.nextBackoff(min, max)).isEqualTo(max);

    ready();
    assertThat(peer.dial.nextBackoff(min, max)).isEqualTo(min);
  }

  @Test
  void closed_readyConnectionOfAMember_isLost_thenRefused_andRequestsFailAtOnce() {
    peer.joined(ADDRESS);
    PeerConnection connection = ready();

    Peer.Loss loss = peer.closed(connection, false);
    assertThat(loss.wasCurrent()).isTrue();
    assertThat(loss.address()).isEqualTo(ADDRESS);
    assertThat(peer.state()).isEqualTo(Peer.State.LOST);
    assertThat(peer.admit(request()).queued()).as("a lost peer's requests wait").isTrue();

    assertThat(peer.refused(loss.token())).hasSize(1);
    assertThat(peer.state()).isEqualTo(Peer.State.REFUSED);
    Peer.Admission admission = peer.admit(request());
    assertThat(admission.queued()).isFalse();
    assertThat(admission.refused()).isTrue();
  }

  @Test
  void refused_forALossSinceFollowedByAConnection_isStale_andChangesNothing() {
    peer.joined(ADDRESS);
    long first = peer.closed(ready(), false).token();
    long second = peer.closed(ready(), false).token();

    assertThat(peer.refused(first)).isNull();
    assertThat(peer.state()).isEqualTo(Peer.State.LOST);
    assertThat(peer.refused(second)).isEmpty();
  }

  @Test
  void closed_readyConnectionOfANonMemberOrWhileClosing_isDisconnected_withNothingToCheck() {
    PeerConnection accepted = ready();
    assertThat(peer.closed(accepted, false)).isEqualTo(new Peer.Loss(true, 0, null));
    assertThat(peer.state()).isEqualTo(Peer.State.DISCONNECTED);

    peer.joined(ADDRESS);
    assertThat(peer.closed(ready(), true).token()).isZero();
    assertThat(peer.state()).isEqualTo(Peer.State.DISCONNECTED);
  }

  @Test
  void left_whileReady_handsBackTheConnectionForItsReplies_andReinstatesItOnReturn() {
    peer.joined(ADDRESS);
    PeerConnection connection = ready();

    Peer.Departure departure = peer.left();
    assertThat(departure.connection()).isSameAs(connection);
    assertThat(peer.state()).isEqualTo(Peer.State.DISCONNECTED);
    assertThat(peer.readyWithoutLock()).isNull();
    assertThat(peer.admit(request())).isEqualTo(new Peer.Admission(null, null, false, false));
    assertThat(peer.left()).as("not a member any more").isNull();

    peer.joined(ADDRESS);
    assertThat(peer.readyWithoutLock()).isSameAs(connection);
    assertThat(peer.state()).isEqualTo(Peer.State.READY);
  }

  /**
   * A view change names a member again whose dialed connection was kept for the replies it owes: a request or a
   * redial right after must find that connection, not dial a second one, whose handshake would replace the kept one
   * and close it, failing those replies (a migrated session's only copy, say).
   */
  @Test
  void joined_withTheDialedConnectionKeptForItsReplies_isReadyOnIt_inTheSameStep_soNothingDialsASecond() {
    peer.joined(ADDRESS);
    assertThat(peer.startDial()).isEqualTo(ADDRESS);
    PeerConnection kept = connection(true);
    assertThat(peer.dial.connected(ADDRESS, kept)).isTrue();
    peer.ready(kept);
    assertThat(peer.left().connection()).isSameAs(kept);

    peer.joined(ADDRESS);
    assertThat(peer.startDial()).as("a redial, or a request's dial, right after the view named it again").isNull();
    assertThat(peer.dial.state()).isEqualTo(PeerDial.State.IDLE);
    assertThat(peer.admit(request())).as("a request goes on the kept connection")
        .isEqualTo(new Peer.Admission(kept, null, false, false));
    assertThat(peer.state()).isEqualTo(Peer.State.READY);
  }

  @Test
  void ready_withRequestsWaiting_handsTheQueueToOneDrainer_andLaterRequestsJoinIt() {
    peer.joined(ADDRESS);
    Waiting first = request();
    assertThat(peer.admit(first).queued()).isTrue();
    assertThat(peer.queuedWithoutLock()).isTrue();

    PeerConnection connection = connection(false);
    Peer.Readiness readiness = peer.ready(connection);
    assertThat(readiness.toDrain()).isNotNull();
    Peer.Admission meanwhile = peer.admit(request());
    assertThat(meanwhile.queued()).as("joins the queue instead of overtaking it").isTrue();
    assertThat(meanwhile.toDrain()).as("one drainer at a time").isNull();

    assertThat(peer.nextToDrain(readiness.toDrain())).hasSize(2).first().isEqualTo(first);
    assertThat(peer.nextToDrain(readiness.toDrain())).isEmpty();
    assertThat(peer.queuedWithoutLock()).as("retired once drained").isFalse();
  }
}
