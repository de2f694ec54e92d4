package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Transport} must do (the contract in its javadoc). A module with a transport extends this
 * class and supplies a {@link Fixture}; the tests then run against real sockets as they do here in memory.
 */
public abstract class TransportContract {
  /** How long a test waits for something that must happen. */
  protected static final Duration WAIT = Duration.ofSeconds(10);

  /** Creates connected transports; closes everything it created. */
  public interface Fixture extends AutoCloseable {
    /**
     * Creates, starts (with {@code handler}) and connects a transport for {@code id}: after this call every
     * transport of the fixture can reach every other. The request timeout must be short (under a second).
     */
    Transport start(NodeId id, RequestHandler handler) throws Exception;

    /** The node stops abruptly (process death): its peers find it unreachable. */
    void kill(NodeId id);

    @Override
    void close();
  }

  protected abstract Fixture newFixture() throws Exception;

  private Fixture fixture;

  private Fixture fixture() throws Exception {
    if (fixture == null) {
      fixture = newFixture();
    }
    return fixture;
  }

  @AfterEach
  void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private static final NodeId A = new NodeId("a");
  private static final NodeId B = new NodeId("b");
  private static final NodeId C = new NodeId("c");

  private static RequestHandler echo() {
    return (from, request) -> CompletableFuture.completedFuture(
        request instanceof Message.Locate l ? new Message.LocateReply(l.sessionId(), Message.LocateReply.Holding.NONE, 0, 0)
            : new Message.Ack(1, 1));
  }

  private static Message await(CompletableFuture<Message> reply) throws Exception {
    return reply.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void request_isAnsweredWithThePeersReply_messagesArriveIntact() throws Exception {
    List<Message> received = new CopyOnWriteArrayList<>();
    Transport a = fixture().start(A, echo());
    fixture().start(B, (from, request) -> {
      received.add(request);
      return CompletableFuture.completedFuture(new Message.Nack(Message.Nack.Reason.GAP, 3, 4, "from " + from.value()));
    });
    List<Message> sent = List.of(
        new Message.Locate("s1"),
        new Message.Invalidate("s1", 1, 2, Message.InvalidateReason.EXPIRED),
        new Message.TouchBatch(List.of(new Message.Touch("s2", 1, 99))));

    for (Message m : sent) {
      assertThat(await(a.request(B, m))).isEqualTo(new Message.Nack(Message.Nack.Reason.GAP, 3, 4, "from a"));
    }
    assertThat(received).containsExactlyElementsOf(sent);
  }

  @Test
  void requestsToOnePeer_arriveInOrder_andItsHandlerNeverRunsConcurrentlyForOneSender() throws Exception {
    List<String> order = new CopyOnWriteArrayList<>();
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger maxConcurrent = new AtomicInteger();
    Transport a = fixture().start(A, echo());
    fixture().start(B, (from, request) -> {
      maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
      order.add(((Message.Locate) request).sessionId());
      concurrent.decrementAndGet();
      return CompletableFuture.completedFuture(new Message.Ack(0, 0));
    });
    List<CompletableFuture<Message>> replies = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      expected.add("s" + i);
      replies.add(a.request(B, new Message.Locate("s" + i)));
    }

    CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(order).containsExactlyElementsOf(expected);
    assertThat(maxConcurrent.get()).isEqualTo(1);
  }

  @Test
  void throwingHandler_failsThatRequestOnly() throws Exception {
    Transport a = fixture().start(A, echo());
    fixture().start(B, (from, request) -> {
      if (request instanceof Message.Locate l && l.sessionId().equals("boom")) {
        throw new IllegalStateException("handler exploded");
      }
      return CompletableFuture.completedFuture(new Message.Ack(5, 5));
    });

    assertThatThrownBy(() -> await(a.request(B, new Message.Locate("boom"))))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RemoteHandlerException.class);
    assertThat(await(a.request(B, new Message.Locate("fine")))).isEqualTo(new Message.Ack(5, 5));
  }

  @Test
  void killedPeer_isUnreachable() throws Exception {
    Transport a = fixture().start(A, echo());
    fixture().start(B, echo());
    assertThat(await(a.request(B, new Message.Locate("x")))).isNotNull();

    fixture().kill(B);

    assertThatThrownBy(() -> await(a.request(B, new Message.Locate("y"))))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfAny(PeerUnreachableException.class, TimeoutException.class);
  }

  @Test
  void unknownPeer_isUnreachable() throws Exception {
    Transport a = fixture().start(A, echo());

    assertThatThrownBy(() -> await(a.request(new NodeId("nobody"), new Message.Locate("y"))))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(PeerUnreachableException.class);
  }

  @Test
  void handlerThatNeverAnswers_timesOut() throws Exception {
    Transport a = fixture().start(A, echo());
    fixture().start(B, (from, request) -> new CompletableFuture<>());

    assertThatThrownBy(() -> await(a.request(B, new Message.Locate("never"))))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void requestAfterClose_isUnreachable() throws Exception {
    Transport a = fixture().start(A, echo());
    fixture().start(B, echo());

    a.close();

    assertThatThrownBy(() -> await(a.request(B, new Message.Locate("late"))))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(PeerUnreachableException.class);
  }

  @Test
  void twoSenders_areBothServed() throws Exception {
    Transport a = fixture().start(A, echo());
    Transport c = fixture().start(C, echo());
    fixture().start(B, (from, request) -> CompletableFuture.completedFuture(new Message.LocateReply(from.value(), Message.LocateReply.Holding.NONE, 0, 0)));

    assertThat(await(a.request(B, new Message.Locate("q")))).isEqualTo(new Message.LocateReply("a", Message.LocateReply.Holding.NONE, 0, 0));
    assertThat(await(c.request(B, new Message.Locate("q")))).isEqualTo(new Message.LocateReply("c", Message.LocateReply.Holding.NONE, 0, 0));
  }
}
