package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression, found by the load benchmark: in ASYNC an invalidation was queued behind the outbox's backlog. After an
 * overloaded step thousands of sessions waited there for the window (the buddy's unanswered messages), and the
 * harness's logout got a 503: its invalidation was not even sent within twice the ack timeout. An invalidation now
 * goes to the transport at once, and what was queued for the ended session is dropped.
 */
class AsyncInvalidationBacklogTest {
  private static final NodeId BUDDY = NodeId.of("buddy");
  private static final int WINDOW = 4;

  private AsyncOutbox outbox;

  @AfterEach
  void close() {
    if (outbox != null) {
      outbox.close();
    }
  }

  @Test
  void asyncInvalidationQueuedBehindTheBacklog_isSentAtOnce_andConfirmedWhileTheWindowIsStillFull() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().mode(ReplicationMode.ASYNC)
        .ackTimeout(Duration.ofMillis(500)).build();
    HoldingTransport transport = new HoldingTransport();
    OwnedSessions owned = new OwnedSessions(Clock.systemUTC());
    ReplicationCounters counters = new ReplicationCounters();
    RateLimitedLog log = new RateLimitedLog(System.getLogger(getClass().getName()));
    FlushRules rules = new FlushRules(config,
        AttributeCodecs.create(config.codec(), ClassFilter.of(List.of()), config.codecLimits()),
        ReplicationListener.NONE, counters, log);
    AtomicReference<OwnerWrites> writes = new AtomicReference<>();
    // The window waits far longer than the test: only replies could open it, and the buddy sends none.
    outbox = new AsyncOutbox(1_000, WINDOW, TimeUnit.SECONDS.toNanos(60), io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"),
        (session, item, more) -> writes.get().sendQueued(session, item, more));
    writes.set(new OwnerWrites(config, transport, rules, owned, new TouchCoalescer(), outbox,
        new PendingInvalidations(new NodeId("n1"), Ticker.system(), Duration.ofMinutes(1)), new ViewChanges(Ticker.system(), io.tandem.core.spi.Waiter.blocking()), counters, log, Clock.systemUTC(),
        Ticker.system(), io.tandem.core.spi.Waiter.blocking(),
        Scheduler.Factory.system().create(Scheduler.Lane.TIMEOUTS, new NodeId("n1")), new FixedBuddy()));

    OwnedSession leaving = null;
    for (int i = 0; i < 20; i++) {
      OwnedSession session = session("s" + i);
      owned.add(session);
      assertThat(writes.get().flush(session, Set.of())).isEqualTo(FlushOutcome.QUEUED);
      leaving = session;
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> transport.sent.size() == WINDOW);
    assertThat(outbox.isQueued(leaving)).as("the last session's update waits behind the backlog").isTrue();

    CompletableFuture<FlushOutcome> logout = writes.get().end(leaving, Message.InvalidateReason.INVALIDATED);

    assertThat(logout.get(10, TimeUnit.SECONDS)).as("confirmed by the buddy, not timed out behind the queue")
        .isEqualTo(FlushOutcome.REPLICATED);
    assertThat(transport.sent).hasSize(WINDOW + 1);
    assertThat(transport.sent.get(WINDOW)).isEqualTo(new Message.Invalidate("s19", 1, leaving.version(),
        Message.InvalidateReason.INVALIDATED));
    assertThat(outbox.isQueued(leaving)).as("its queued update is dropped: nothing of it matters any more").isFalse();
  }

  private static OwnedSession session(String id) {
    Source source = new Source();
    source.attributes.put("a", "1");
    OwnedSession session = new OwnedSession(id, 1, 0, new SessionContent.Live(source));
    session.attributeChanged("a");
    return session;
  }

  /** A buddy that acknowledges invalidations at once and leaves every other request unanswered. */
  private static final class HoldingTransport implements Transport {
    final List<Message> sent = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<Message> request(NodeId peer, Message message) {
      sent.add(message);
      return message instanceof Message.Invalidate invalidate
          ? CompletableFuture.completedFuture(new Message.Ack(invalidate.epoch(), invalidate.version()))
          : new CompletableFuture<>();
    }

    @Override
    public NodeId localNode() {
      return NodeId.of("owner");
    }

    @Override
    public String localAddress() {
      return "127.0.0.1:1";
    }

    @Override
    public void start(RequestHandler handler) {}

    @Override
    public void updatePeers(MembershipView view) {}

    @Override
    public void close() {}
  }

  private static final class FixedBuddy implements OwnerWrites.Engine {
    @Override
    public NodeId buddy() {
      return BUDDY;
    }

    @Override
    public boolean aloneInView() {
      return false; // a buddy, always
    }

    @Override
    public void fence(OwnedSession s, String reason) {}

    @Override
    public void ended(OwnedSession s) {}

    @Override
    public void idGivenUp(OwnedSession s, String oldId) {}

    @Override
    public void protectedAnew(OwnedSession s, io.tandem.core.spi.NodeId to,
        java.util.concurrent.CompletableFuture<Boolean> formerIdsEnded) {
      formerIdsEnded.complete(true); // no member holds a former id here
    }

    @Override
    public boolean suspect(OwnedSession s) {
      return false;
    }
  }

  private static final class Source implements SessionSource {
    final Map<String, Object> attributes = new ConcurrentHashMap<>();

    @Override
    public SessionMetadata metadata() {
      return SessionMetadata.created(1, 1800);
    }

    @Override
    public Set<String> attributeNames() {
      return Set.copyOf(attributes.keySet());
    }

    @Override
    public Object attribute(String name) {
      return attributes.get(name);
    }
  }
}
