package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionMetadata;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The race where a flush read the buddy outside the session's lock: a view change in between (new buddy, session
 * marked for a full resend) completed first, then the flush sent the full copy to the old buddy and cleared the mark,
 * so state transfer skipped the session and the new buddy never got it. Driven deterministically: the view change
 * runs exactly when the flush asks for the buddy.
 */
class OwnerWritesViewRaceTest {
  private static final NodeId OLD = NodeId.of("old");
  private static final NodeId NEW = NodeId.of("new");

  @Test
  void viewChangeWhileAFlushReadsTheBuddy_theSessionStillOwesTheNewBuddyAFullCopy() throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().ackTimeout(Duration.ofMillis(500)).build();
    ReplicationCounters counters = new ReplicationCounters();
    RateLimitedLog log = new RateLimitedLog(System.getLogger(getClass().getName()));
    FlushRules rules = new FlushRules(config,
        AttributeCodecs.create(config.codec(), ClassFilter.of(List.of()), config.codecLimits()),
        ReplicationListener.NONE, counters, log);
    OwnedSessions owned = new OwnedSessions(Clock.systemUTC());
    TestSource source = new TestSource();
    OwnedSession session = new OwnedSession("s1", 1, 0, new SessionContent.Live(source));
    owned.add(session);
    RecordingTransport transport = new RecordingTransport();
    ViewChangeOnFirstBuddyRead engine = new ViewChangeOnFirstBuddyRead(session, owned);
    OwnerWrites writes = new OwnerWrites(config, transport, rules, owned, new TouchCoalescer(), null,
        new PendingInvalidations(new NodeId("n1"), Ticker.system(), Duration.ofMinutes(1)), new ViewChanges(Ticker.system(), io.tandem.core.spi.Waiter.blocking()), counters, log, Clock.systemUTC(),
        Ticker.system(), io.tandem.core.spi.Waiter.blocking(),
        Scheduler.Factory.system().create(Scheduler.Lane.TIMEOUTS, new NodeId("n1")), engine);
    source.attributes.put("a", "1");
    session.attributeChanged("a");

    FlushOutcome outcome = writes.flush(session, Set.of());
    engine.viewChange.join(); // the view change's own work on the session, which may have waited for its lock

    assertThat(outcome).isEqualTo(FlushOutcome.REPLICATED);
    boolean sentToNewBuddy = transport.sentTo.contains(NEW);
    assertThat(sentToNewBuddy || session.needsFull())
        .as("the new buddy got the session, or it is still marked for a full resend (state transfer sends it)")
        .isTrue();
  }

  /** The membership delivering a new view (buddy OLD to NEW) at the moment the flush reads the buddy. */
  private static final class ViewChangeOnFirstBuddyRead implements OwnerWrites.Engine {
    private final OwnedSession session;
    private final OwnedSessions owned;
    private volatile NodeId buddy = OLD;
    private volatile CompletableFuture<Void> viewChange;

    ViewChangeOnFirstBuddyRead(OwnedSession session, OwnedSessions owned) {
      this.session = session;
      this.owned = owned;
    }

    @Override
    public NodeId buddy() {
      NodeId current = buddy;
      if (viewChange == null) {
        // As the engine's onView does: the new buddy first, then every session marked for a full resend.
        viewChange = CompletableFuture.runAsync(() -> {
          buddy = NEW;
          owned.markUnprotected(session);
        });
        try {
          viewChange.get(200, TimeUnit.MILLISECONDS); // completes at once unless the flush holds the session lock
        } catch (Exception waitedLongEnough) {
          // the flush holds the lock: the view change finishes after the flush, as it must
        }
      }
      return current;
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

  private static final class RecordingTransport implements Transport {
    final List<NodeId> sentTo = new CopyOnWriteArrayList<>();

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
    public CompletableFuture<Message> request(NodeId peer, Message message) {
      sentTo.add(peer);
      return CompletableFuture.completedFuture(new Message.Ack(1, 1));
    }

    @Override
    public void close() {}
  }

  private static final class TestSource implements io.tandem.core.session.SessionSource {
    final java.util.Map<String, Object> attributes = new java.util.concurrent.ConcurrentHashMap<>();

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
