package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue "A 200 means two copies", item 10: the transport completes no future while holding a lock, and a send that
 * races the close of its connection fails at once. Both tests interleave threads with latches and hooks, no sleeps.
 */
class GrizzlyTransportLockDisciplineTest {
  private static final String CLUSTER = "locks";
  private static final byte[] SECRET = "lock-discipline-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId SERVER = new NodeId("m-server");
  private static final NodeId RAW = new NodeId("a-raw");
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void closeAll() throws Exception {
    threads.shutdownNow();
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private GrizzlyTransport server(GrizzlyTransportConfig config) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(config);
    toClose.add(transport);
    transport.start((from, request) -> CompletableFuture.completedFuture(new Message.Ack(1, 1)));
    // The raw peer's id sorts first, so it dials and the server only accepts: its address is never used.
    transport.updatePeers(new MembershipView(1, List.of(new Member(SERVER, transport.localAddress()), new Member(RAW, "127.0.0.1:1"))));
    return transport;
  }

  private RawPeer raw(GrizzlyTransport target) throws Exception {
    RawPeer peer = new RawPeer(target.localAddress(), RAW);
    toClose.add(peer);
    return peer;
  }

  /**
   * A request thread holding a session lock called into the transport while the thread that made a peer ready held
   * the transport's lock and completed a queued request's future, whose callback wanted that session lock.
   */
  @Test
  void becameReady_callbackWantsASessionLockHeldByASender_noDeadlock() throws Exception {
    GrizzlyTransport server = server(GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofSeconds(5)).withLimits(64 * 1024, 64 * 1024));
    ReentrantLock sessionLock = new ReentrantLock();
    CountDownLatch callbackEntered = new CountDownLatch(1);
    CountDownLatch senderHoldsSessionLock = new CountDownLatch(1);
    CompletableFuture<Boolean> callbackGotSessionLock = new CompletableFuture<>();

    // Queued while the peer has no connection; too big for the outbound bound, so it fails as the peer connects.
    CompletableFuture<Message> queued = server.request(RAW, new Message.Locate("x".repeat(70_000)));
    queued.whenComplete((reply, failure) -> {
      callbackEntered.countDown();
      try {
        senderHoldsSessionLock.await(5, TimeUnit.SECONDS);
        boolean got = sessionLock.tryLock(2, TimeUnit.SECONDS);
        if (got) {
          sessionLock.unlock();
        }
        callbackGotSessionLock.complete(got);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        callbackGotSessionLock.complete(false);
      }
    });
    Future<?> sender = threads.submit(() -> {
      callbackEntered.await(5, TimeUnit.SECONDS);
      sessionLock.lock();
      try {
        senderHoldsSessionLock.countDown();
        server.request(RAW, new Message.Locate("while-holding-a-session-lock"));
      } finally {
        sessionLock.unlock();
      }
      return null;
    });

    raw(server).authenticate(CLUSTER, SECRET);

    assertThat(callbackGotSessionLock.get(10, TimeUnit.SECONDS)).as("the callback could take the session lock").isTrue();
    sender.get(10, TimeUnit.SECONDS);
    assertThat(queued).isCompletedExceptionally();
  }

  /** A send that checked its connection was open, then registered its reply after the close failed the others. */
  @Test
  void send_racingTheCloseOfItsConnection_failsAtOnceInsteadOfWaitingOutItsTimeout() throws Exception {
    GrizzlyTransport server = server(GrizzlyTransportConfig.loopback(CLUSTER, SERVER, SECRET, Duration.ofSeconds(10)));
    RawPeer peer = raw(server);
    peer.authenticate(CLUSTER, SECRET);
    peer.send(new Envelope(1, false, new Message.Locate("ready?")));
    assertThat(peer.read().correlationId()).isEqualTo(1); // the server has made the connection ready
    CountDownLatch closed = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    server.hooks(new TransportHooks() {
      @Override
      public void beforeRegisteringReply(PeerConnection connection) {
        if (first.getAndSet(false)) {
          try {
            peer.close();
            closed.await(5, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      }

      @Override
      public void afterClosed(PeerConnection connection) {
        closed.countDown();
      }
    });

    CompletableFuture<Message> reply = server.request(RAW, new Message.Locate("racing-the-close"));

    assertThat(closed.getCount()).as("the close ran inside the window").isZero();
    assertThat(reply).failsWithin(Duration.ofSeconds(2)).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(PeerUnreachableException.class);
  }
}
