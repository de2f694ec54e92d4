package io.tandem.core.replicator;

import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The sending half of a graceful shutdown: every owned session, in full and as it is now, goes to the buddy in
 * batches, and the buddy owns it from then on (at the next epoch: see {@link Adoption#adoptHandoff}). Each
 * session is fenced as it is captured ({@link OwnedSession#handOver}), as a migration does: a flush prepared before
 * is in the copy handed over, one after it is answered 503, and a migration another member asks for meanwhile is
 * refused. Captured without fencing, a session could be migrated to a third member while its batch was on the way,
 * and the buddy and that member would then both own it at the same epoch (each fencing the other, or the older copy
 * winning). A session is retired here once its batch was acknowledged; one the buddy did not acknowledge in time
 * stays fenced until this node leaves, and its backup is adopted then, as after a crash.
 *
 * <p>Implementation notes: no state of its own; runs on the container's thread that stops the manager, and takes
 * each session's lock only to capture it, never across encoding or the send.
 */
final class GracefulHandoff {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final NodeId local;
  private final Transport transport;
  private final OwnedSessions owned;
  private final FlushRules rules;
  private final long batchBytes;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;
  /** Called for each session let go of: nothing is left to confirm after a pause. */
  private final Consumer<OwnedSession> letGo;
  private final Ticker ticker;
  private final Waiter waiter;

  GracefulHandoff(NodeId local, Transport transport, OwnedSessions owned, FlushRules rules, long batchBytes,
      ReplicationCounters counters, RateLimitedLog log, Consumer<OwnedSession> letGo, Ticker ticker, Waiter waiter) {
    this.local = local;
    this.transport = transport;
    this.owned = owned;
    this.rules = rules;
    this.batchBytes = batchBytes;
    this.counters = counters;
    this.log = log;
    this.letGo = letGo;
    this.ticker = ticker;
    this.waiter = waiter;
  }

  /** Hands every owned session to {@code to}; returns how many it acknowledged within {@code timeout}. */
  int handOff(NodeId to, Duration timeout) {
    long deadline = ticker.read() + timeout.toNanos();
    List<OwnedSession> batch = new ArrayList<>();
    List<SessionSnapshot> snapshots = new ArrayList<>();
    long bytes = 0;
    long wireBytes = 0;
    int handed = 0;
    for (OwnedSession session : List.copyOf(owned.all())) {
      Optional<OwnedSession.HandOver> captured = session.handOver();
      if (captured.isEmpty()) {
        continue; // fenced, ended or migrated away meanwhile
      }
      SessionSnapshot snapshot = OwnedSession.encode(captured.get(), rules);
      long size = MessageCodec.snapshotBytes(snapshot);
      if (!batch.isEmpty() && wireBytes + size > rules.maxSessionSize) {
        // Sent first, so that a batch always fits in a frame: a session handed over whole (ownership moves, nothing
        // is left out) may be larger than its replicated copy, and it must not take the others down with it.
        handed += send(to, batch, snapshots, deadline);
        batch.clear();
        snapshots.clear();
        bytes = 0;
        wireBytes = 0;
      }
      batch.add(session);
      snapshots.add(snapshot);
      bytes += snapshot.serializedSize();
      wireBytes += size;
      if (bytes >= batchBytes) {
        handed += send(to, batch, snapshots, deadline);
        batch.clear();
        snapshots.clear();
        bytes = 0;
        wireBytes = 0;
      }
    }
    if (!batch.isEmpty()) {
      handed += send(to, batch, snapshots, deadline);
    }
    LOG.log(Level.INFO, "Node {0} handed {1} sessions over to {2} before leaving", local.value(), handed, to.value());
    return handed;
  }

  private int send(NodeId to, List<OwnedSession> sessions, List<SessionSnapshot> snapshots, long deadline) {
    try {
      // The handoff's own deadline, not the transport's request timeout (the ack timeout): a buddy that is slow
      // while a node leaves (a loaded machine, a collection pause) is waited for, as the container allows.
      Duration left = Duration.ofNanos(Math.max(1, deadline - ticker.read()));
      Message reply = waiter.await(
          transport.request(to, new Message.BulkTransfer(Message.BulkTransfer.Purpose.HANDOFF, snapshots), left), left.toNanos());
      if (!(reply instanceof Message.Ack)) {
        log.warn("handoff:" + to, "Buddy " + to.value() + " refused a handoff: " + reply);
        return 0;
      }
      for (OwnedSession session : sessions) {
        owned.retire(session);
        letGo.accept(session);
      }
      counters.sessionsHandedOff.add(sessions.size());
      return sessions.size();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("handoff:" + to, "Handoff of " + sessions.size() + " sessions to " + to.value() + " failed: " + e);
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }
}
