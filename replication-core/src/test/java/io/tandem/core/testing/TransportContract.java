package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Transport} contract as tests, so that every transport (in-memory, Grizzly TCP) is held to the same
 * promises the engine relies on. A transport module extends this class and implements {@link #newFixture}.
 *
 * <p>{@link Message.Handshake} is not exercised: a real transport may reserve it for connection setup.
 */
public abstract class TransportContract {
  protected static final NodeId A = NodeId.of("a");
  protected static final NodeId B = NodeId.of("b");
  protected static final NodeId C = NodeId.of("c");

  private TransportFixture fixture;

  /** A fresh fixture for one test; it is closed after the test. */
  protected abstract TransportFixture newFixture(Duration requestTimeout) throws Exception;

  /**
   * How long a request waits for its reply: short so the suite is fast, yet long enough that a thousand requests in a
   * burst are answered on a loaded 2-core machine (300 ms was not, in a run beside other builds).
   */
  protected Duration requestTimeout() {
    return Duration.ofMillis(1000);
  }

  /** How long a test waits for something the transport should do well within the request timeout. */
  protected Duration patience() {
    return requestTimeout().multipliedBy(10);
  }

  protected final TransportFixture fixture() {
    return fixture;
  }

  @BeforeEach
  protected void createFixture() throws Exception {
    fixture = newFixture(requestTimeout());
  }

  @AfterEach
  protected void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  protected void messagesArriveAndReturnEqual() throws Exception {
    List<Message> received = Collections.synchronizedList(new ArrayList<>());
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) -> {
                  received.add(request);
                  return CompletableFuture.completedFuture(request);
                });

    for (Message message : sampleMessages()) {
      Message reply = nodes.get(A).request(B, message).get(patience().toMillis(), TimeUnit.MILLISECONDS);
      assertThat(reply).isEqualTo(message);
    }
    assertThat(received).containsExactlyElementsOf(sampleMessages());
  }

  @Test
  protected void requestsToOnePeerAreHandledInOrder() throws Exception {
    ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) -> {
                  seen.add(((Message.Ack) request).version());
                  return CompletableFuture.completedFuture(request);
                });

    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (long i = 0; i < 1000; i++) {
      replies.add(nodes.get(A).request(B, new Message.Ack(0, i)));
    }
    awaitAll(replies);
    for (int i = 0; i < replies.size(); i++) {
      assertThat(replies.get(i).join()).isEqualTo(new Message.Ack(0, i));
    }
    assertThat(seen).containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
  }

  @Test
  protected void handlerIsNeverCalledConcurrentlyForOneSender() throws Exception {
    AtomicInteger active = new AtomicInteger();
    AtomicInteger maxActive = new AtomicInteger();
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) -> {
                  maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
                  long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(200);
                  while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                  }
                  active.decrementAndGet();
                  return CompletableFuture.completedFuture(request);
                });

    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (long i = 0; i < 200; i++) {
      replies.add(nodes.get(A).request(B, new Message.Ack(0, i)));
    }
    awaitAll(replies);
    assertThat(maxActive).hasValue(1);
  }

  @Test
  protected void failingHandlerGivesRemoteHandlerExceptionAndTransportKeepsServing() throws Exception {
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) -> {
                  if (request.equals(new Message.Locate("throw"))) {
                    throw new IllegalStateException("boom-thrown");
                  }
                  if (request.equals(new Message.Locate("fail"))) {
                    return CompletableFuture.failedFuture(new IllegalArgumentException("boom-failed"));
                  }
                  return CompletableFuture.completedFuture(request);
                });
    Transport a = nodes.get(A);

    assertThat(failure(a.request(B, new Message.Locate("throw"))))
        .isInstanceOf(RemoteHandlerException.class)
        .hasMessageContaining("boom-thrown");
    assertThat(a.request(B, new Message.Ack(1, 1)).get(patience().toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(new Message.Ack(1, 1));
    assertThat(failure(a.request(B, new Message.Locate("fail"))))
        .isInstanceOf(RemoteHandlerException.class)
        .hasMessageContaining("boom-failed");
    assertThat(a.request(B, new Message.Ack(1, 2)).get(patience().toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(new Message.Ack(1, 2));
  }

  @Test
  protected void requestToUnknownPeerIsUnreachable() throws Exception {
    Map<NodeId, Transport> nodes = start(A, echo(), B, echo());

    assertThat(failure(nodes.get(A).request(NodeId.of("nobody"), new Message.Ack(0, 0))))
        .isInstanceOf(PeerUnreachableException.class);
  }

  @Test
  protected void requestToKilledPeerIsUnreachable() throws Exception {
    Map<NodeId, Transport> nodes = start(A, echo(), B, echo());
    Transport a = nodes.get(A);
    assertThat(a.request(B, new Message.Ack(0, 1)).get(patience().toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(new Message.Ack(0, 1));

    fixture.kill(B);

    assertThat(failure(a.request(B, new Message.Ack(0, 2)))).isInstanceOf(PeerUnreachableException.class);
  }

  @Test
  protected void pendingRequestFailsWhenPeerIsKilled() throws Exception {
    AtomicBoolean called = new AtomicBoolean();
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) -> {
                  called.set(true);
                  return new CompletableFuture<>();
                });
    CompletableFuture<Message> reply = nodes.get(A).request(B, new Message.Ack(0, 1));
    await().atMost(patience()).untilTrue(called);

    fixture.kill(B);

    assertThat(failure(reply)).isInstanceOf(PeerUnreachableException.class);
  }

  @Test
  protected void handlerThatNeverAnswersTimesOut() throws Exception {
    Map<NodeId, Transport> nodes =
        start(
            A, echo(),
            B,
                (from, request) ->
                    request instanceof Message.Locate
                        ? new CompletableFuture<>()
                        : CompletableFuture.completedFuture(request));
    Transport a = nodes.get(A);

    long started = System.nanoTime();
    Throwable failure = failure(a.request(B, new Message.Locate("never")));
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(failure).isInstanceOf(TimeoutException.class);
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(requestTimeout().toMillis() - 20);
    assertThat(a.request(B, new Message.Ack(0, 1)).get(patience().toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(new Message.Ack(0, 1));
  }

  @Test
  protected void requestAfterCloseIsUnreachable() throws Exception {
    Map<NodeId, Transport> nodes = start(A, echo(), B, echo());
    Transport a = nodes.get(A);

    a.close();

    assertThat(failure(a.request(B, new Message.Ack(0, 1)))).isInstanceOf(PeerUnreachableException.class);
  }

  @Test
  protected void twoSendersToOneReceiverAreBothServedInTheirOwnOrder() throws Exception {
    Map<NodeId, ConcurrentLinkedQueue<Long>> seen = new ConcurrentHashMap<>();
    RequestHandler recording =
        (from, request) -> {
          seen.computeIfAbsent(from, f -> new ConcurrentLinkedQueue<>()).add(((Message.Ack) request).version());
          return CompletableFuture.completedFuture(request);
        };
    Map<NodeId, RequestHandler> handlers = new LinkedHashMap<>();
    handlers.put(A, echo());
    handlers.put(B, echo());
    handlers.put(C, recording);
    Map<NodeId, Transport> nodes = fixture.start(handlers);

    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (long i = 0; i < 200; i++) {
      replies.add(nodes.get(A).request(C, new Message.Ack(1, i)));
      replies.add(nodes.get(B).request(C, new Message.Ack(2, i)));
    }
    awaitAll(replies);

    List<Long> expected = LongStream.range(0, 200).boxed().toList();
    assertThat(seen).containsOnlyKeys(A, B);
    assertThat(seen.get(A)).containsExactlyElementsOf(expected);
    assertThat(seen.get(B)).containsExactlyElementsOf(expected);
  }

  // ---- helpers for subclasses ----

  /** Starts two nodes through the fixture. */
  protected final Map<NodeId, Transport> start(
      NodeId first, RequestHandler firstHandler, NodeId second, RequestHandler secondHandler) throws Exception {
    Map<NodeId, RequestHandler> handlers = new LinkedHashMap<>();
    handlers.put(first, firstHandler);
    handlers.put(second, secondHandler);
    return fixture.start(handlers);
  }

  /** A handler that answers every request with the request itself. */
  protected static RequestHandler echo() {
    return (from, request) -> CompletableFuture.completedFuture(request);
  }

  /** Why {@code future} failed; fails the test if it does not fail within {@link #patience()}. */
  protected final Throwable failure(CompletableFuture<?> future) {
    Throwable thrown = catchThrowable(() -> future.get(patience().toMillis(), TimeUnit.MILLISECONDS));
    assertThat(thrown).as("the request should fail within %s", patience()).isInstanceOf(ExecutionException.class);
    return thrown.getCause();
  }

  /** Waits until every future is done and none failed. */
  protected final void awaitAll(List<CompletableFuture<Message>> futures) throws Exception {
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .get(patience().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One message of every request and reply type but the handshake, with every field set. */
  protected static List<Message> sampleMessages() {
    Blob value = Blob.wrap("value".getBytes(StandardCharsets.UTF_8));
    SessionMetadata metadata =
        new SessionMetadata(1_000L, 2_000L, 1800, "FORM", Blob.wrap(new byte[] {1, 2, 3}), Map.of("note", value));
    SessionSnapshot snapshot = new SessionSnapshot("s1", 2, 5, metadata, Map.of("a", value, "b", Blob.EMPTY));
    return List.of(
        new Message.FullSession(snapshot),
        new Message.SessionDelta("s1", 2, 5, 6, metadata, Map.of("a", value), Set.of("b")),
        new Message.SessionDelta("s1", 2, 6, 7, null, Map.of(), Set.of()),
        new Message.TouchBatch(List.of(new Message.Touch("s1", 2, 3_000L), new Message.Touch("s2", 1, 4_000L))),
        new Message.Invalidate("s1", 2, 7, Message.InvalidateReason.EXPIRED),
        new Message.IdChange("s1", "s9", 2, 8),
        new Message.Ack(2, 8),
        new Message.Nack(Message.Nack.Reason.GAP, 2, 4, "at 4"),
        new Message.Locate("s9"),
        new Message.LocateReply("s9", Message.LocateReply.Holding.BACKUP, 2, 8),
        new Message.Migrate("s9", NodeId.of("c"), 3),
        new Message.BulkTransfer(Message.BulkTransfer.Purpose.HANDOFF, List.of(snapshot)));
  }
}
