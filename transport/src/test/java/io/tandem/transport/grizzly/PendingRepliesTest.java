package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.TransportException;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class PendingRepliesTest {
  private static final NodeId PEER = new NodeId("b");
  private final PendingReplies pending = new PendingReplies();

  private static Message.SessionDelta delta(long version) {
    return new Message.SessionDelta("s", 3, version - 1, version, null, Map.of(), Set.of());
  }

  private CompletableFuture<Message> register(long id, Message request, long deadline) {
    CompletableFuture<Message> reply = new CompletableFuture<>();
    pending.register(id, request, reply, deadline, 500);
    return reply;
  }

  @Test
  void aRange_completesEachRequestWithTheAckItImplies_andCountsIdsNotPending() {
    CompletableFuture<Message> one = register(1, delta(10), 0);
    CompletableFuture<Message> two = register(2, delta(11), 0);
    CompletableFuture<Message> four = register(4, delta(12), 0);

    PendingReplies.RangeOutcome outcome = pending.acknowledgeRange(PEER, 3, 3);

    assertThat(one).isCompletedWithValue(new Message.Ack(3, 10));
    assertThat(two).isCompletedWithValue(new Message.Ack(3, 11));
    assertThat(four).isNotDone();
    assertThat(outcome).isEqualTo(new PendingReplies.RangeOutcome(2, 1));
  }

  @Test
  void aRangeCountFarLargerThanWhatIsPending_costsOnlyWhatIsPending() {
    CompletableFuture<Message> last = register(1_000_000, delta(5), 0);

    PendingReplies.RangeOutcome outcome = pending.acknowledgeRange(PEER, 1_000_000, Message.AckRange.MAX_COUNT);

    assertThat(last).isCompletedWithValue(new Message.Ack(3, 5));
    assertThat(outcome.acknowledged()).isEqualTo(1);
  }

  @Test
  void aRangeCoveringARequestThatNeedsARealReply_failsThatRequestOnly() {
    CompletableFuture<Message> locate = register(1, new Message.Locate("s"), 0);
    CompletableFuture<Message> update = register(2, delta(7), 0);

    pending.acknowledgeRange(PEER, 2, 2);

    assertThat(locate).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(TransportException.class).withMessageContaining("LOCATE");
    assertThat(update).isCompletedWithValue(new Message.Ack(3, 7));
  }

  @Test
  void expire_failsOnlyRequestsAtOrPastTheirDeadline() {
    CompletableFuture<Message> early = register(1, delta(1), 100);
    CompletableFuture<Message> late = register(2, delta(2), 200);

    assertThat(pending.expire(99, "b")).isZero();
    assertThat(pending.expire(100, "b")).isEqualTo(1);

    assertThat(early).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(TimeoutException.class).withMessageContaining("within 500ms");
    assertThat(late).isNotDone();
    assertThat(pending.answer(PEER, 1, new Message.Ack(3, 1))).as("already failed: a late reply completes nothing").isFalse();
  }

  @Test
  void forget_removesOnlyTheSameReply() {
    CompletableFuture<Message> reply = register(1, delta(1), 0);

    assertThat(pending.forget(1, new CompletableFuture<>())).isFalse();
    assertThat(pending.forget(1, reply)).isTrue();
    assertThat(pending.isEmpty()).isTrue();
  }
}
