package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.ProtocolVersions;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue "Hostile network": hostile peers over real sockets. Each test checks that the node goes on serving a
 * legitimate member, that its heap stays bounded, and that its log stays short (WARN lines counted by a handler on
 * the transport's logger). Deadlines are short so the suite runs in seconds.
 */
class GrizzlyTransportHostileNetworkTest {
  private static final String CLUSTER = "hostile-network";
  private static final byte[] SECRET = "the-right-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId SERVER = new NodeId("m-server");
  private static final NodeId FRIEND = new NodeId("a-friend");
  private static final Duration HANDSHAKE = Duration.ofMillis(300);
  private static final Duration STALLED = Duration.ofMillis(300);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Logger transportLog = Logger.getLogger(GrizzlyTransport.class.getName());
  private final AtomicInteger warnings = new AtomicInteger();
  private final Handler counting = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
        warnings.incrementAndGet();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void captureLog() {
    transportLog.addHandler(counting);
  }

  @AfterEach
  void closeAll() throws Exception {
    transportLog.removeHandler(counting);
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static RequestHandler echo() {
    return (from, request) -> CompletableFuture.completedFuture(new Message.Ack(7, 7));
  }

  private GrizzlyTransport start(GrizzlyTransportConfig config) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(config);
    toClose.add(transport);
    transport.start(echo());
    return transport;
  }

  private GrizzlyTransport server() throws Exception {
    return start(GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofSeconds(2))
        .withHostilePeerLimits(HANDSHAKE, STALLED, 64, 8));
  }

  private void assertStillServes(GrizzlyTransport server) throws Exception {
    GrizzlyTransport friend = start(GrizzlyTransportConfig.loopback(CLUSTER, FRIEND, SECRET, Duration.ofSeconds(2)));
    MembershipView view = new MembershipView(1, List.of(new Member(SERVER, server.localAddress()), new Member(FRIEND, friend.localAddress())));
    friend.updatePeers(view);
    server.updatePeers(view);
    assertThat(friend.request(SERVER, new Message.Locate("still-there")).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(7, 7));
  }

  private static Socket connect(GrizzlyTransport target) throws IOException {
    String address = target.localAddress();
    int colon = address.lastIndexOf(':');
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))), 2000);
    socket.setSoTimeout(3000);
    return socket;
  }

  private static boolean closedByPeer(Socket socket) {
    try {
      return socket.getInputStream().read() < 0;
    } catch (IOException e) {
      return true;
    }
  }

  private static long heapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  /** Seven such connections used to allocate 7 × 32 MiB before anyone authenticated. */
  @Test
  void hundredUnauthenticatedConnectionsDeclaring32MiB_heapGrowsUnder10MiB() throws Exception {
    GrizzlyTransport server = server();
    long before = heapAfterGc();
    List<Socket> sockets = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Socket socket = connect(server);
      sockets.add(socket);
      OutputStream out = socket.getOutputStream();
      out.write(ByteBuffer.allocate(12).putInt(32 << 20).put((byte) 1).put((byte) 9).put((byte) 0).array());
      out.flush();
    }
    long during = heapAfterGc();
    for (Socket socket : sockets) {
      assertThat(closedByPeer(socket)).isTrue();
      socket.close();
    }

    assertThat(during - before).as("heap growth in bytes").isLessThan(10L << 20);
    assertThat(server.stats().refusals(RefusalCause.OVERSIZED_BEFORE_AUTHENTICATION) + server.stats().refusals(RefusalCause.TOO_MANY_UNAUTHENTICATED))
        .isEqualTo(100);
    assertStillServes(server);
  }

  /** 1,000 garbage connections used to write 1,000 WARN lines, one per source port. */
  @Test
  void tenThousandGarbageConnections_writeAFewDozenWarnLinesAtMost() throws Exception {
    GrizzlyTransport server = server();
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(clients.submit(() -> {
          for (int i = 0; i < 2_500; i++) {
            try (Socket socket = connect(server)) {
              socket.setSoLinger(true, 0); // no TIME_WAIT pile-up on the test's side
              socket.getOutputStream().write(new byte[] {0, 0, 0, 1, 42, 42, 42, 42});
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      clients.shutdownNow();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().unauthenticatedConnections() == 0);

    assertThat(warnings.get()).as("WARN lines for 10,000 garbage connections").isLessThanOrEqualTo(40);
    // Thousands reached the node, so one line per connection would have been thousands of lines. Not all of them: a
    // client that resets its connection (SO_LINGER 0) at once can be gone before the accept completes, and how many
    // are depends on the machine's load (a CI run counted 9,999; a run beside four builds, 8,743).
    assertThat(server.stats().connectionsAccepted()).isBetween(2_000L, 10_000L);
    assertStillServes(server);
  }

  @Test
  void silentAndTruncatedConnections_areClosedAtTheHandshakeDeadline() throws Exception {
    GrizzlyTransport server = server();
    List<Socket> sockets = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      Socket socket = connect(server);
      if (i % 2 == 0) {
        byte[] hello = MessageCodec.encodeToBytes(new Envelope(0, false, new Message.Handshake(
            ProtocolVersions.IMPLEMENTED, CLUSTER, new NodeId("truncated"), Blob.wrap(new byte[16]), Blob.EMPTY)));
        socket.getOutputStream().write(hello, 0, hello.length - 5);
      }
      sockets.add(socket);
    }

    long started = System.nanoTime();
    for (Socket socket : sockets) {
      assertThat(closedByPeer(socket)).isTrue();
      socket.close();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    assertThat(server.stats().refusals(RefusalCause.HANDSHAKE_TIMEOUT)).isPositive().isLessThanOrEqualTo(64);
    assertThat(server.stats().refusals(RefusalCause.HANDSHAKE_TIMEOUT) + server.stats().refusals(RefusalCause.TOO_MANY_UNAUTHENTICATED))
        .isEqualTo(300);
    assertThat(warnings.get()).isLessThanOrEqualTo(20);
    assertStillServes(server);
  }

  @Test
  void authenticatedPeerWritingAByteAtATime_isClosedAtTheStalledFrameDeadline() throws Exception {
    GrizzlyTransport server = server();
    RawPeer slow = new RawPeer(server.localAddress(), new NodeId("a-slow"));
    toClose.add(slow);
    slow.authenticate(CLUSTER, SECRET);
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(3, false, new Message.Locate("a".repeat(1000))));

    long started = System.nanoTime();
    boolean closed = false;
    for (int i = 0; i < frame.length && !closed; i++) {
      try {
        slow.sendRaw(new byte[] {frame[i]});
        Thread.sleep(20); // the hostile peer's pace, not a wait for the node
      } catch (IOException e) {
        closed = true;
      }
      closed = closed || server.stats().refusals(RefusalCause.STALLED_FRAME) > 0;
    }

    assertThat(closed).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    await().atMost(Duration.ofSeconds(2)).until(slow::isClosedByPeer);
    assertStillServes(server);
  }

  @Test
  void replayedHandshake_isRefused() throws Exception {
    GrizzlyTransport server = server();
    NodeId id = new NodeId("a-replayer");
    PeerAuthenticator auth = new PeerAuthenticator(SECRET, CLUSTER);
    Blob nonce = auth.newNonce();
    Message.Handshake hello = new Message.Handshake(ProtocolVersions.IMPLEMENTED, CLUSTER, id, nonce, Blob.EMPTY);
    Blob recordedProof;
    try (RawPeer original = new RawPeer(server.localAddress(), id)) {
      original.send(hello);
      Message.Handshake challenge = (Message.Handshake) original.read().message();
      recordedProof = auth.proof(challenge.nonce(), nonce, id, ProtocolVersions.IMPLEMENTED, challenge.versions());
      original.send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, CLUSTER, id, nonce, recordedProof));
    }

    RawPeer replayer = new RawPeer(server.localAddress(), id);
    toClose.add(replayer);
    replayer.send(hello);
    replayer.read();
    replayer.send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, CLUSTER, id, nonce, recordedProof));
    RawPeer proofFirst = new RawPeer(server.localAddress(), id);
    toClose.add(proofFirst);
    proofFirst.send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, CLUSTER, id, nonce, recordedProof));

    await().atMost(Duration.ofSeconds(2)).until(replayer::isClosedByPeer);
    await().atMost(Duration.ofSeconds(2)).until(proofFirst::isClosedByPeer);
    assertThat(server.stats().refusals(RefusalCause.WRONG_SECRET)).isEqualTo(1);
    assertThat(server.stats().refusals(RefusalCause.PROTOCOL_VIOLATION)).isEqualTo(1);
    assertStillServes(server);
  }

  @Test
  void peersOfAnotherProtocolVersionOrWithTheWrongSecret_areRefusedByCause() throws Exception {
    GrizzlyTransport server = server();
    RawPeer future = new RawPeer(server.localAddress(), new NodeId("future"));
    toClose.add(future);
    RawPeer wrong = new RawPeer(server.localAddress(), new NodeId("wrong"));
    toClose.add(wrong);

    future.send(new Message.Handshake(ProtocolVersions.only(MessageCodec.PROTOCOL_VERSION + 1), CLUSTER, future.id, Blob.wrap(new byte[16]), Blob.EMPTY));
    wrong.authenticate(CLUSTER, "not-the-shared-secret".getBytes(StandardCharsets.UTF_8));

    assertThat(future.read().message()).isInstanceOf(Message.Handshake.class);
    await().atMost(Duration.ofSeconds(2)).until(future::isClosedByPeer);
    await().atMost(Duration.ofSeconds(2)).until(wrong::isClosedByPeer);
    assertThat(server.stats().refusals(RefusalCause.PROTOCOL_VERSION)).isEqualTo(1);
    assertThat(server.stats().refusals(RefusalCause.WRONG_SECRET)).isEqualTo(1);
    assertThat(server.stats().authenticationFailures()).isEqualTo(2);
    assertStillServes(server);
  }
}
