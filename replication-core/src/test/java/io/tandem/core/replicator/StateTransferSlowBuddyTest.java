package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.testing.ManualScheduler;
import io.tandem.core.testing.ManualTicker;
import io.tandem.core.wire.Message;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * docs/protocol.md 8.5: a buddy that is slow but alive timed a state-transfer batch out, the batch was marked
 * unprotected and the next one was as large, so the same buddy received as much again for as long as it stayed slow.
 * The next batch is halved after each one not answered in time, and grows back after each answered.
 */
class StateTransferSlowBuddyTest {
  private static final NodeId BUDDY = new NodeId("n2");
  /** About four sessions of {@link #ATTRIBUTE_BYTES} each. */
  private static final long BATCH_BYTES = 4_000;
  private static final int ATTRIBUTE_BYTES = 1_000;

  private final ManualScheduler scheduler = new ManualScheduler(new ManualTicker());
  private final List<Batch> sent = new ArrayList<>();

  private record Batch(int sessions, CompletableFuture<Message> reply) {}

  @Test
  void batchTheBuddyDidNotAnswerInTime_halvesTheNext_andAnAnsweredOneDoublesItBack() {
    StateTransfer transfer = stateTransfer();
    for (int i = 0; i < 12; i++) {
      transfer.enqueue(session("s" + i));
    }

    scheduler.runDue();
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).sessions()).isEqualTo(4);

    sent.get(0).reply().completeExceptionally(new TimeoutException("no reply from n2 within 5500ms"));
    scheduler.runDue();
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).sessions()).as("half the bytes after a timeout").isEqualTo(2);

    sent.get(1).reply().complete(new Message.Ack(0, 0));
    scheduler.runDue();
    assertThat(sent.get(2).sessions()).as("back to the whole batch once the buddy answers").isEqualTo(4);
  }

  @Test
  void budgetNeverFallsBelowOneSession_andGrowsBackToTheBatch_notPastIt() {
    StateTransfer transfer = stateTransfer();
    for (int i = 0; i < 40; i++) {
      transfer.enqueue(session("s" + i));
    }
    for (int timeouts = 0; timeouts < 15; timeouts++) {
      scheduler.runDue();
      sent.get(sent.size() - 1).reply().completeExceptionally(new TimeoutException("slow"));
    }
    scheduler.runDue();
    assertThat(sent.get(sent.size() - 1).sessions()).isEqualTo(1);

    for (int acks = 0; acks < 7; acks++) { // from 1/64 of the batch: 62, 124, ..., 3968, then the whole 4000
      sent.get(sent.size() - 1).reply().complete(new Message.Ack(0, 0));
      scheduler.runDue();
    }
    assertThat(transfer.batchBudget()).isEqualTo(BATCH_BYTES);
  }

  @Test
  void aRefusedConnection_isNotSlowness_andKeepsTheBatchWhole() {
    StateTransfer transfer = stateTransfer();
    for (int i = 0; i < 12; i++) {
      transfer.enqueue(session("s" + i));
    }
    scheduler.runDue();
    sent.get(0).reply().completeExceptionally(new java.io.IOException("connection to n2 closed"));
    scheduler.runDue();

    assertThat(sent.get(1).sessions()).isEqualTo(4);
  }

  private StateTransfer stateTransfer() {
    ReplicationConfig config = ReplicationConfig.builder().build();
    ReplicationCounters counters = new ReplicationCounters();
    RateLimitedLog log = new RateLimitedLog(System.getLogger(getClass().getName()));
    FlushRules rules = new FlushRules(config,
        AttributeCodecs.create(config.codec(), ClassFilter.of(List.of()), config.codecLimits()),
        ReplicationListener.NONE, counters, log);
    return new StateTransfer(scheduler.create(Scheduler.Lane.MAINTENANCE, new NodeId("n1")),
        new TokenBucket(Clock.systemUTC(), 1_000_000_000L, 1_000_000_000L), BATCH_BYTES,
        () -> Optional.of(BUDDY), (to, message) -> {
          CompletableFuture<Message> reply = new CompletableFuture<>();
          sent.add(new Batch(((Message.BulkTransfer) message).sessions().size(), reply));
          return reply;
        }, rules, new StateTransfer.Callbacks() {
          @Override
          public void protectedAt(OwnedSession session, NodeId buddy, long version) {}

          @Override
          public void refused(OwnedSession session, NodeId buddy, Message.Nack refusal) {}

          @Override
          public void failed(List<OwnedSession> sessions, NodeId buddy, Throwable cause) {}

          @Override
          public void skippedTooLarge(OwnedSession session, long wireBytes) {}
        });
  }

  private static OwnedSession session(String id) {
    String value = "x".repeat(ATTRIBUTE_BYTES);
    return new OwnedSession(id, 1, 0, new SessionContent.Live(new SessionSource() {
      @Override
      public SessionMetadata metadata() {
        return SessionMetadata.created(1, 1800);
      }

      @Override
      public Set<String> attributeNames() {
        return Set.of("a");
      }

      @Override
      public Object attribute(String name) {
        return "a".equals(name) ? value : null;
      }
    }));
  }
}
