package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.TransportException;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The faults and hooks engine tests rely on, beyond the transport contract. */
class InMemoryNetworkTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);
  private static final Duration PATIENCE = Duration.ofSeconds(3);
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");

  private final InMemoryNetwork network = new InMemoryNetwork();

  @AfterEach
  void closeNetwork() {
    network.close();
  }

  @Test
  void hungNodeHoldsRequestsUntilResumedThenGetsThemInOrder() throws Exception {
    ConcurrentLinkedQueue<Long> seen = new ConcurrentLinkedQueue<>();
    InMemoryTransport a = started(A, echo());
    started(B, recordingVersions(seen));
    network.hang(B);

    List<CompletableFuture<Message>> held = new ArrayList<>();
    for (long i = 0; i < 5; i++) {
      held.add(a.request(B, new Message.Ack(0, i)));
    }
    for (CompletableFuture<Message> request : held) {
      assertThat(failure(request)).isInstanceOf(TimeoutException.class);
    }
    assertThat(network.delivered(A, B)).isZero();

    network.resume(B);

    await().atMost(PATIENCE).until(() -> network.delivered(A, B) == 5);
    assertThat(seen).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(reply(a.request(B, new Message.Ack(0, 5)))).isEqualTo(new Message.Ack(0, 5));
    assertThat(seen).endsWith(5L);
  }

  @Test
  void hungNodeWithholdsItsReplies() throws Exception {
    CompletableFuture<Message> answer = new CompletableFuture<>();
    InMemoryTransport a = started(A, echo());
    started(B, (from, request) -> answer);
    CompletableFuture<Message> request = a.request(B, new Message.Locate("s1"));
    await().atMost(PATIENCE).until(() -> network.delivered(A, B) == 1);

    network.hang(B);
    answer.complete(new Message.Ack(0, 1));

    assertThat(failure(request)).isInstanceOf(TimeoutException.class);
    network.resume(B);
  }

  @Test
  void partitionMakesPeersUnreachableUntilHealed() throws Exception {
    InMemoryTransport a = started(A, echo());
    started(B, never());
    started(C, echo());
    CompletableFuture<Message> pending = a.request(B, new Message.Ack(0, 1));
    await().atMost(PATIENCE).until(() -> network.delivered(A, B) == 1);

    network.partition(Set.of(A), Set.of(B, C));

    assertThat(failure(pending)).isInstanceOf(PeerUnreachableException.class);
    CompletableFuture<Message> across = a.request(C, new Message.Ack(0, 2));
    assertThat(across).isCompletedExceptionally();
    assertThat(failure(across)).isInstanceOf(PeerUnreachableException.class);

    network.heal();

    assertThat(reply(a.request(C, new Message.Ack(0, 3)))).isEqualTo(new Message.Ack(0, 3));
  }

  @Test
  void droppedRequestsTimeOutAndLaterOnesArrive() throws Exception {
    InMemoryTransport a = started(A, echo());
    started(B, echo());
    network.dropNext(A, B, 2);

    CompletableFuture<Message> first = a.request(B, new Message.Ack(0, 1));
    CompletableFuture<Message> second = a.request(B, new Message.Ack(0, 2));
    CompletableFuture<Message> third = a.request(B, new Message.Ack(0, 3));

    assertThat(reply(third)).isEqualTo(new Message.Ack(0, 3));
    assertThat(failure(first)).isInstanceOf(TimeoutException.class);
    assertThat(failure(second)).isInstanceOf(TimeoutException.class);
    assertThat(network.delivered(A, B)).isEqualTo(1);
    assertThat(network.delivered(B, A)).isZero();
  }

  @Test
  void crashedNodeFailsPendingAndNewRequestsAndCannotSend() throws Exception {
    InMemoryTransport a = started(A, echo());
    InMemoryTransport b = started(B, never());
    CompletableFuture<Message> pending = a.request(B, new Message.Ack(0, 1));
    await().atMost(PATIENCE).until(() -> network.delivered(A, B) == 1);

    network.crash(B);

    assertThat(failure(pending)).isInstanceOf(PeerUnreachableException.class);
    CompletableFuture<Message> afterCrash = a.request(B, new Message.Ack(0, 2));
    assertThat(afterCrash).isCompletedExceptionally();
    assertThat(failure(afterCrash)).isInstanceOf(PeerUnreachableException.class);
    assertThat(failure(b.request(A, new Message.Ack(0, 3)))).isInstanceOf(PeerUnreachableException.class);
    assertThat(network.delivered(B, A)).isZero();

    InMemoryTransport restarted = started(B, echo());
    assertThat(reply(a.request(B, new Message.Ack(0, 4)))).isEqualTo(new Message.Ack(0, 4));
    assertThat(reply(restarted.request(A, new Message.Ack(0, 5)))).isEqualTo(new Message.Ack(0, 5));
  }

  @Test
  void wireHookSeesEveryRequestAndReply() throws Exception {
    network.setWireHook(
        message -> message instanceof Message.Ack ack ? new Message.Ack(ack.epoch(), ack.version() + 1) : message);
    AtomicReference<Message> received = new AtomicReference<>();
    InMemoryTransport a = started(A, echo());
    started(
        B,
        (from, request) -> {
          received.set(request);
          return CompletableFuture.completedFuture(request);
        });

    assertThat(reply(a.request(B, new Message.Ack(0, 0)))).isEqualTo(new Message.Ack(0, 2));
    assertThat(received.get()).isEqualTo(new Message.Ack(0, 1));

    network.setWireHook(
        message -> {
          throw new IllegalArgumentException("cannot encode");
        });
    assertThat(failure(a.request(B, new Message.Ack(0, 0))))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("cannot encode");
  }

  @Test
  void tooManyOutstandingRequestsToOnePeerFailWithBackPressure() throws Exception {
    InMemoryTransport a = network.transport(A, TIMEOUT, 2);
    a.start(echo());
    started(B, never());
    started(C, echo());

    CompletableFuture<Message> first = a.request(B, new Message.Ack(0, 1));
    CompletableFuture<Message> second = a.request(B, new Message.Ack(0, 2));
    CompletableFuture<Message> third = a.request(B, new Message.Ack(0, 3));

    assertThat(third).isCompletedExceptionally();
    assertThat(failure(third)).isInstanceOf(BackPressureException.class);
    assertThat(a.inFlight(B)).isEqualTo(2);
    assertThat(reply(a.request(C, new Message.Ack(0, 4)))).isEqualTo(new Message.Ack(0, 4));
    assertThat(failure(first)).isInstanceOf(TimeoutException.class);
    assertThat(failure(second)).isInstanceOf(TimeoutException.class);
    await().atMost(PATIENCE).until(() -> a.inFlight(B) == 0);
    assertThat(failure(a.request(B, new Message.Ack(0, 5)))).isInstanceOf(TimeoutException.class);
  }

  @Test
  void requestsBeforeStartOrToUnstartedNodesAreUnreachable() throws Exception {
    InMemoryTransport a = network.transport(A, TIMEOUT);
    network.transport(B, TIMEOUT);

    assertThat(failure(a.request(B, new Message.Ack(0, 1)))).isInstanceOf(PeerUnreachableException.class);
    a.start(echo());
    assertThat(failure(a.request(B, new Message.Ack(0, 1)))).isInstanceOf(PeerUnreachableException.class);
    assertThatThrownBy(() -> a.start(echo())).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> network.transport(A, TIMEOUT)).isInstanceOf(IllegalStateException.class);
    assertThat(a.localAddress()).isEqualTo("inmem:a");
  }

  @Test
  void requestToSelfIsDeliveredOnItsOwnChannelThread() throws Exception {
    AtomicReference<String> thread = new AtomicReference<>();
    AtomicReference<NodeId> sender = new AtomicReference<>();
    InMemoryTransport a =
        started(
            A,
            (from, request) -> {
              thread.set(Thread.currentThread().getName());
              sender.set(from);
              return CompletableFuture.completedFuture(request);
            });

    assertThat(reply(a.request(A, new Message.Locate("s1")))).isEqualTo(new Message.Locate("s1"));
    assertThat(thread.get()).isEqualTo("tandem-inmem-a-a");
    assertThat(sender.get()).isEqualTo(A);
    assertThat(network.delivered(A, A)).isEqualTo(1);
  }

  @Test
  void closingFailsPendingRequestsBothWaysAndFreesTheNodeId() throws Exception {
    InMemoryTransport a = started(A, never());
    InMemoryTransport b = started(B, never());
    CompletableFuture<Message> fromA = a.request(B, new Message.Ack(0, 1));
    CompletableFuture<Message> toA = b.request(A, new Message.Ack(0, 2));
    await().atMost(PATIENCE).until(() -> network.delivered(A, B) == 1 && network.delivered(B, A) == 1);

    a.close();

    assertThat(failure(fromA)).isInstanceOf(PeerUnreachableException.class);
    assertThat(failure(toA)).isInstanceOf(PeerUnreachableException.class);
    assertThat(failure(b.request(A, new Message.Ack(0, 3)))).isInstanceOf(PeerUnreachableException.class);
    started(A, echo());
    assertThat(reply(b.request(A, new Message.Ack(0, 4)))).isEqualTo(new Message.Ack(0, 4));
  }

  @Test
  void closingTheNetworkFailsEveryPendingRequest() throws Exception {
    InMemoryTransport a = started(A, echo());
    started(B, never());
    CompletableFuture<Message> pending = a.request(B, new Message.Ack(0, 1));

    network.close();

    assertThat(failure(pending)).isInstanceOf(PeerUnreachableException.class);
    assertThat(failure(a.request(B, new Message.Ack(0, 2)))).isInstanceOf(PeerUnreachableException.class);
  }

  private InMemoryTransport started(NodeId id, RequestHandler handler) {
    InMemoryTransport transport = network.transport(id, TIMEOUT);
    transport.start(handler);
    return transport;
  }

  private static RequestHandler echo() {
    return (from, request) -> CompletableFuture.completedFuture(request);
  }

  private static RequestHandler never() {
    return (from, request) -> new CompletableFuture<>();
  }

  private static RequestHandler recordingVersions(ConcurrentLinkedQueue<Long> seen) {
    return (from, request) -> {
      seen.add(((Message.Ack) request).version());
      return CompletableFuture.completedFuture(request);
    };
  }

  private static Message reply(CompletableFuture<Message> future) throws Exception {
    return future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    Throwable thrown = catchThrowable(() -> future.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS));
    assertThat(thrown).isInstanceOf(ExecutionException.class);
    return thrown.getCause();
  }
}
