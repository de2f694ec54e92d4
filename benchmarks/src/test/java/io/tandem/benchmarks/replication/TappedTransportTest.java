package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The buddy's count of updates applied: session versions acknowledged, so coalesced updates all count. */
class TappedTransportTest {
  private static final NodeId OWNER = new NodeId("a-owner");
  private static final SessionMetadata METADATA = SessionMetadata.created(0, 1800);

  private final Captured delegate = new Captured();
  private final TappedTransport tapped = new TappedTransport(delegate);
  /** What the tapped handler answers next. */
  private Message answer;

  @BeforeEach
  void start() throws Exception {
    tapped.start((from, request) -> CompletableFuture.completedFuture(answer));
  }

  private void handle(Message request, Message reply) {
    answer = reply;
    delegate.handler.handle(OWNER, request).toCompletableFuture().join();
  }

  private static Message.SessionDelta delta(String id, long base, long version) {
    return new Message.SessionDelta(id, 1, base, version, METADATA, Map.of("a", Blob.wrap(new byte[] {1})), Set.of());
  }

  private static SessionSnapshot snapshot(String id, long version) {
    return new SessionSnapshot(id, 1, version, METADATA, Map.of());
  }

  @Test
  void applied_countsVersionsBeyondEachSessionsFirst_soACoalescedDeltaCountsEveryUpdateItCarries() {
    handle(new Message.FullSession(snapshot("s1", 1)), new Message.Ack(1, 1));
    handle(new Message.FullSession(snapshot("s2", 4)), new Message.Ack(1, 4));
    assertThat(tapped.applied()).as("first versions are where counting starts").isZero();

    handle(delta("s1", 1, 2), new Message.Ack(1, 2));
    handle(delta("s1", 2, 7), new Message.Ack(1, 7)); // five updates coalesced into one message
    handle(delta("s2", 4, 5), new Message.Ack(1, 5));

    assertThat(tapped.applied()).isEqualTo(1 + 5 + 1);
    assertThat(tapped.handled()).isEqualTo(5);
  }

  @Test
  void applied_ignoresRefusalsAndVersionsAlreadyHeld() {
    handle(new Message.FullSession(snapshot("s1", 1)), new Message.Ack(1, 1));
    handle(delta("s1", 3, 4), new Message.Nack(Message.Nack.Reason.GAP, 1, 1, "no base"));
    handle(delta("s1", 1, 3), new Message.Ack(1, 3));
    handle(new Message.FullSession(snapshot("s1", 2)), new Message.Ack(1, 3)); // a late resend of an older version

    assertThat(tapped.applied()).isEqualTo(2);
  }

  @Test
  void applied_aBulkTransferCountsEverySessionItCarries() {
    handle(new Message.FullSession(snapshot("s1", 1)), new Message.Ack(1, 1));
    handle(new Message.BulkTransfer(Message.BulkTransfer.Purpose.BACKUP, List.of(snapshot("s1", 9), snapshot("s2", 3))),
        new Message.Ack(0, 0));

    assertThat(tapped.applied()).isEqualTo(8);
  }

  /** Keeps the handler the tap installs; nothing is sent. */
  private static final class Captured implements Transport {
    RequestHandler handler;

    @Override
    public NodeId localNode() {
      return new NodeId("b-buddy");
    }

    @Override
    public String localAddress() {
      return "test";
    }

    @Override
    public void start(RequestHandler handler) {
      this.handler = handler;
    }

    @Override
    public void updatePeers(MembershipView view) {}

    @Override
    public CompletableFuture<Message> request(NodeId peer, Message message) {
      return new CompletableFuture<>();
    }

    @Override
    public void close() {}
  }
}
