package io.tandem.core.replicator;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.util.List;

/**
 * The owner side's periodic work, as tasks of the maintenance tick: the batch of touches that fell due goes to the
 * buddy; an adopted session not attached by the container expires here, and a session whose buddy has no copy is
 * queued for the state transfer again; invalidations the buddy has not acknowledged are sent again.
 *
 * <p>Implementation notes: no state of its own; runs on the maintenance thread only. What it reads is thread-safe
 * where it lives ({@link TouchCoalescer}, {@link PendingInvalidations}, {@link OwnedSessions}); ending a session goes
 * through {@link OwnerWrites#end}, as a request's does.
 */
final class OwnerUpkeep {
  private final ReplicationConfig config;
  private final Transport transport;
  private final ReplicationCounters counters;
  private final TouchCoalescer touches;
  private final OwnedSessions owned;
  private final OwnerWrites writes;
  /** The ASYNC queue, or null in SYNC mode. */
  private final AsyncOutbox outbox;
  private final StateTransfer stateTransfer;
  private final PendingInvalidations invalidations;

  OwnerUpkeep(ReplicationConfig config, Transport transport, ReplicationCounters counters, TouchCoalescer touches,
      OwnedSessions owned, OwnerWrites writes, AsyncOutbox outbox, StateTransfer stateTransfer,
      PendingInvalidations invalidations) {
    this.config = config;
    this.transport = transport;
    this.counters = counters;
    this.touches = touches;
    this.owned = owned;
    this.writes = writes;
    this.outbox = outbox;
    this.stateTransfer = stateTransfer;
    this.invalidations = invalidations;
  }

  /** Sends the touches that fell due to the buddy, in one batch. */
  void sendTouches(Maintenance.Tick tick) {
    List<Message.Touch> due = touches.drainIfDue(tick.nowMillis());
    if (!due.isEmpty() && tick.buddy() != null) {
      counters.touchBatchesSent.increment();
      counters.touchesSent.add(due.size());
      transport.request(tick.buddy(), new Message.TouchBatch(due));
    }
  }

  /** Expires adopted sessions past their idle time, and queues the others the buddy has no copy of. */
  void sweepOwned(Maintenance.Tick tick) {
    for (OwnedSession session : owned.all()) {
      // Against the last access its former owner sent, which lags by up to touchLagCap (a session read often and
      // written rarely reaches its buddy as coalesced touches): without that grace it expired right after a failover
      // while its user was active (issue 27 item 4).
      if (session.isStored() && session.metadata().isExpiredAt(tick.nowMillis(), config.touchLagCap().toMillis())) {
        writes.end(session, InvalidateReason.EXPIRED);
      } else if (tick.buddy() != null && session.needsFull() && (outbox == null || !outbox.isQueued(session))) {
        stateTransfer.enqueue(session);
      }
    }
  }

  /**
   * Sends again the invalidations the member holding the copy has not acknowledged yet: to that member while the view
   * lists it, and to the buddy while nobody acknowledged one (see {@link PendingInvalidations#due}).
   */
  void resendInvalidations(Maintenance.Tick tick) {
    for (PendingInvalidations.Resend resend : invalidations.due(tick.view(), tick.buddy())) {
      writes.sendInvalidation(resend.to(), resend.invalidate());
    }
  }
}
