package io.tandem.core.replicator;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * What the {@link StateTransfer}'s answers mean for each session it sent: protected on the buddy (which then hears of
 * the ids a login gave up meanwhile), refused (fenced when the cluster moved on from the copy, else unprotected again),
 * or not sent at all.
 *
 * <p>Implementation notes: no state of its own; called on transport threads (replies) and the maintenance thread
 * (sessions skipped as too large), and by request threads through {@link #tellIdsGivenUp}.
 */
final class TransferOutcomes implements StateTransfer.Callbacks {
  private final RingTracker ring;
  private final OwnedSessions owned;
  private final Transport transport;
  private final ReplicationConfig config;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;
  private final BiConsumer<OwnedSession, String> fence;

  /** Told that the buddy holds the session again: a holder it was migrated from is released then ({@link Reprotection}). */
  private final BiConsumer<OwnedSession, NodeId> protectedAnew;

  TransferOutcomes(RingTracker ring, OwnedSessions owned, Transport transport, ReplicationConfig config,
      ReplicationCounters counters, RateLimitedLog log, BiConsumer<OwnedSession, String> fence,
      BiConsumer<OwnedSession, NodeId> protectedAnew) {
    this.protectedAnew = protectedAnew;
    this.ring = ring;
    this.owned = owned;
    this.transport = transport;
    this.config = config;
    this.counters = counters;
    this.log = log;
    this.fence = fence;
  }

  /** A bulk {@code Ack}: protected, if it came from the current buddy. */
  @Override
  public void protectedAt(OwnedSession session, NodeId to, long version) {
    counters.acks.increment();
    if (to.equals(ring.buddy())) {
      CompletableFuture<Boolean> anew = owned.markProtected(session, version);
      if (anew != null) {
        tellIdsGivenUp(session, to, anew);
      }
    }
  }

  @Override
  public void refused(OwnedSession session, NodeId to, Message.Nack refusal) {
    if (refusal.reason() == Message.Nack.Reason.STALE_EPOCH || refusal.reason() == Message.Nack.Reason.INVALIDATED) {
      // As a refused update: the cluster moved on from this copy (taken over, or ended).
      fence.accept(session, "buddy " + to.value() + " refused its copy: " + refusal.reason() + " " + refusal.detail());
      return;
    }
    counters.refusedByBuddy.increment();
    if (refusal.reason() == Message.Nack.Reason.BACKUP_STORE_FULL) {
      // Stays marked for a full copy: the tick sends it again (paced by stateTransferRate) until the buddy
      // has room or the ring names another buddy.
      counters.backupRefusalsFull.increment();
    }
    log.warn("transfer-refused:" + to, "Buddy " + to.value() + " refused the copy of session [" + session.id()
        + "]: " + refusal.reason() + " " + refusal.detail());
    owned.markUnprotected(session);
  }

  @Override
  public void skippedTooLarge(OwnedSession session, long wireBytes) {
    // Counted in sessionsTooLarge when its copy was built. Not re-sent every tick: it stays without a
    // backup (sessionsWithoutBackup) until a request changes it.
    log.warn("transfer-too-large:" + session.id(), "Session [" + session.id() + "] is not re-protected: its"
        + " copy is " + wireBytes + " bytes without any attribute (its principal and notes), over"
        + " maxSessionSize of " + config.maxSessionSize() + " bytes");
  }

  @Override
  public void failed(List<OwnedSession> sessions, NodeId to, Throwable cause) {
    counters.sendFailures.increment();
    log.warn("transfer:" + to, "State transfer of " + sessions.size() + " sessions to " + to + " failed: " + cause);
    sessions.forEach(owned::markUnprotected);
  }

  /**
   * The buddy {@code to} holds a copy of the session again (a bulk ack here, or a flush: see {@link
   * OwnerWrites.Engine#protectedAnew}): each id the session gave up ended, for good. Its answers complete the session's
   * {@link OwnedSession#formerIdsEnded()}, which a flush awaits before it answers: a buddy that holds a former id at a
   * higher epoch (the pre-login session, adopted there while this node was out of its view) means the cluster moved on
   * from this copy, which is fenced; a login answered 200 would have left the abandoned id alive (docs/protocol.md
   * 11.3.30).
   */
  void tellIdsGivenUp(OwnedSession session, NodeId to, CompletableFuture<Boolean> ended) {
    List<String> given = session.formerIds();
    if (given.isEmpty()) {
      protectedAnew.accept(session, to);
      return; // and {@code ended} is complete already
    }
    List<CompletableFuture<Boolean>> answers = new ArrayList<>(given.size());
    for (String id : given) {
      answers.add(transport.request(to, new Message.Invalidate(id, session.epoch(), session.version(),
          InvalidateReason.INVALIDATED)).handle((reply, failure) -> endedThere(session, to, id, reply, failure)));
    }
    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((all, failure) ->
        ended.complete(failure == null && answers.stream().allMatch(CompletableFuture::join)));
    protectedAnew.accept(session, to);
  }

  /** Whether {@code to}'s answer to the end of former id {@code id} means it is gone there; fences when it is not. */
  private boolean endedThere(OwnedSession session, NodeId to, String id, Message reply, Throwable failure) {
    if (reply instanceof Message.Ack || reply instanceof Message.Nack nack
        && (nack.reason() == Message.Nack.Reason.INVALIDATED || nack.reason() == Message.Nack.Reason.UNKNOWN_SESSION)) {
      return true; // ended there now, or already
    }
    if (reply instanceof Message.Nack stale && stale.reason() == Message.Nack.Reason.STALE_EPOCH) {
      fence.accept(session, "buddy " + to.value() + " holds its former id [" + id + "] at a higher epoch: "
          + stale.detail());
      // The copy that buddy holds under this session's id (just acknowledged) is of a copy the cluster moved on from,
      // under the former id: nobody would ever release it, and it would be adopted, a second session of one user,
      // the day this node died (the simulation in ASYNC mode, seed 5360, docs/protocol.md 11.3.45). It ends.
      transport.request(to, new Message.Invalidate(session.id(), session.epoch(), session.version(),
          InvalidateReason.INVALIDATED));
      return false;
    }
    log.warn("former-id:" + to, "Buddy " + to.value() + " did not end former id [" + id + "] of session ["
        + session.id() + "]: " + (failure != null ? failure : reply));
    return false;
  }
}
