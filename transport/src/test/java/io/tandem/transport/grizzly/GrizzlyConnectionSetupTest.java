package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Requests that race the first connection to a peer: they must all ride one connection. A second dial used to slip
 * in while the first connection moved from "dialing" to "handshaking", and its handshake closed the first connection
 * with the requests already sent on it ("connection closed" in CI).
 */
class GrizzlyConnectionSetupTest {
  private static final byte[] SECRET = "setup-test-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId DIALER = new NodeId("a-dialer");
  private static final NodeId ACCEPTOR = new NodeId("b-acceptor");
  private static final int ROUNDS = 15;
  private static final int SENDERS = 4;
  private static final int REQUESTS_PER_SENDER = 50;

  @Test
  void requestsRacingTheFirstConnectionAllSucceedOverOneDial() throws Exception {
    ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
    try {
      for (int round = 0; round < ROUNDS; round++) {
        try (GrizzlyTransport dialer = transport(DIALER); GrizzlyTransport acceptor = transport(ACCEPTOR)) {
          MembershipView view = new MembershipView(1, List.of(
              new Member(DIALER, dialer.localAddress()), new Member(ACCEPTOR, acceptor.localAddress())));
          acceptor.updatePeers(view);

          dialer.updatePeers(view);
          List<CompletableFuture<Message>> replies = fireConcurrently(senders, dialer);

          CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
          assertThat(dialer.stats().connectionsDialed()).as("dials in round %d", round).isEqualTo(1);
        }
      }
    } finally {
      senders.shutdownNow();
    }
  }

  /**
   * A view that drops a peer for a moment (this node was paused, the membership flapped) must not cost the reply to
   * a request already sent to it: a migrated session's only copy travels in such a reply.
   */
  @Test
  void aPeerLeavingTheViewStillDeliversTheReplyToARequestAlreadySent() throws Exception {
    CountDownLatch handling = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (GrizzlyTransport dialer = transport(DIALER);
         GrizzlyTransport acceptor = new GrizzlyTransport(GrizzlyTransportConfig.loopback("setup", ACCEPTOR, SECRET, Duration.ofSeconds(5)))) {
      acceptor.start((from, request) -> CompletableFuture.supplyAsync(() -> {
        handling.countDown();
        try {
          release.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return request;
      }));
      Member dialerMember = new Member(DIALER, dialer.localAddress());
      MembershipView both = new MembershipView(1, List.of(dialerMember, new Member(ACCEPTOR, acceptor.localAddress())));
      acceptor.updatePeers(both);
      dialer.updatePeers(both);

      CompletableFuture<Message> reply = dialer.request(ACCEPTOR, new Message.Ack(9, 9));
      assertThat(handling.await(5, TimeUnit.SECONDS)).isTrue();
      dialer.updatePeers(new MembershipView(2, List.of(dialerMember)));
      release.countDown();

      assertThat(reply.get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(9, 9));
      assertThat(dialer.request(ACCEPTOR, new Message.Ack(1, 1))).as("nothing new is sent to a non-member")
          .failsWithin(Duration.ofSeconds(5));
    }
  }

  private static List<CompletableFuture<Message>> fireConcurrently(
      ExecutorService senders, GrizzlyTransport dialer) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<CompletableFuture<Message>>>> perSender = new ArrayList<>();
    for (int s = 0; s < SENDERS; s++) {
      long sender = s;
      perSender.add(senders.submit(() -> {
        go.await();
        List<CompletableFuture<Message>> mine = new ArrayList<>();
        for (long i = 0; i < REQUESTS_PER_SENDER; i++) {
          mine.add(dialer.request(ACCEPTOR, new Message.Ack(sender, i)));
        }
        return mine;
      }));
    }
    go.countDown();
    List<CompletableFuture<Message>> all = new ArrayList<>();
    for (Future<List<CompletableFuture<Message>>> f : perSender) {
      all.addAll(f.get(10, TimeUnit.SECONDS));
    }
    return all;
  }

  private static GrizzlyTransport transport(NodeId id) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(GrizzlyTransportConfig.loopback("setup", id, SECRET, Duration.ofSeconds(5)));
    transport.start((from, request) -> CompletableFuture.completedFuture(request));
    return transport;
  }
}
