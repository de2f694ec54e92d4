package io.tandem.core.replicator;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.InvalidateReason;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The owner's write path: what a request's flush, an id change or an invalidation sends to the buddy, and the
 * outcome that decides what the client is told.
 *
 * <p>The SYNC contract: a flush is {@link FlushOutcome#isConfirmed() confirmed} only when a buddy acknowledged an
 * update that carries every change of the request (the request's own update, or a parallel request's that took its
 * changes along), or when this node is alone in its view. A buddy that is slow is waited for: past {@code
 * ackTimeout} its acknowledgement is counted slow, and while it stays the buddy the view names and its connection
 * stays open (the transport fails the reply at once when it closes) the request waits for that same reply, since the
 * connection delivers the update in order and the buddy will answer it; re-sending the whole session to a buddy
 * that is behind (a collection pause, a CPU cap) would only add to its backlog. A buddy that refuses, drops the
 * connection or is replaced in the view does not make this node alone: the request re-sends the whole session to
 * whichever buddy the view names, waiting for each new view, until one acknowledges; past {@code ackTimeout} +
 * {@code settleTimeout} from the first send it is {@link FlushOutcome#UNCONFIRMED} (503). A buddy whose backup store
 * is full ({@link Message.Nack.Reason#BACKUP_STORE_FULL}) makes it UNCONFIRMED at once, unless the view names another
 * buddy by then: it is alive and answering, so the view will not move on from it, and re-sending the whole session to
 * it every moment for the settle timeout would only hold the request; the session stays marked for a full copy, which
 * the maintenance tick sends again until that buddy has room. A session another node took over while the request ran is {@link
 * FlushOutcome#FENCED} (503), and an attribute the request set that cannot be serialized makes it {@link
 * FlushOutcome#NOT_REPLICABLE} (500), after the buddy was told to drop that attribute.
 *
 * <p>Implementation notes: the buddy is read, the update prepared and handed to the transport under the session's
 * lock, so a session's updates leave in version order and a view change either happens before (the update goes to
 * the new buddy) or after (it marks the session for a full resend to the new buddy, under the same lock). Waiting
 * happens outside every lock. Replies arrive on transport threads; their callbacks take one session lock at most
 * and complete no future under it.
 */
final class OwnerWrites {
  /** Between two attempts on a buddy that answered at once with a failure, if the view does not change first. */
  private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** How often a request waiting on a slow buddy looks whether the view named another buddy meanwhile. */
  private static final long PATIENCE_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private static final String NO_BUDDY_IN_A_VIEW_OF_SEVERAL = "no member can be its buddy (the others in the view refuse"
      + " connections), but the view still lists them: this node is not alone until the view says so";

  /** What the write path needs from the rest of the engine. */
  interface Engine {
    /**
     * The current buddy, or null when no member can be one: this node is alone in its view, or every other member
     * of it is gone for replication (its connection closed and a redial was refused).
     */
    NodeId buddy();

    /**
     * Whether the membership's view lists this node alone. Without a buddy, only then may a write be answered as
     * kept: a member the view still lists that this node cannot reach, for any reason (a refused redial is a killed
     * process, but also a firewall's reject or a transport restarting), does not make it alone (docs/protocol.md 8.3).
     */
    boolean aloneInView();

    /** Another node owns the session now: drop it here. */
    void fence(OwnedSession session, String reason);

    /** The session ended here (invalidated, expired): forget whatever else tracks it. */
    void ended(OwnedSession session);

    /**
     * A login gave up {@code oldId} at the session's epoch: no copy under it is stored or taken back in here from now
     * on, and a member that asks hears it ended (docs/protocol.md 11.2).
     */
    void idGivenUp(OwnedSession session, String oldId);

    /**
     * The buddy {@code to} holds a copy of the session again, after a time without: it may also hold an older copy
     * under an id a login gave up meanwhile (it was out of the view, or not the buddy, at the login), which it must
     * drop (docs/protocol.md 11.2).
     */
    void protectedAnew(OwnedSession session, NodeId to, CompletableFuture<Boolean> formerIdsEnded);

    /**
     * Whether this node was paused (or cut off) since the session was last confirmed, so that another node may own
     * it now: checked at the end of each SYNC request, since the pause may have struck while the request ran.
     */
    boolean suspect(OwnedSession session);
  }

  private final ReplicationConfig config;
  private final Transport transport;
  private final FlushRules rules;
  private final OwnedSessions owned;
  private final TouchCoalescer touches;
  private final AsyncOutbox outbox;
  private final PendingInvalidations invalidations;
  private final ViewChanges views;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;
  private final InstantSource clock;
  /** Deadlines of the waits below; the waits themselves block in real time (docs/protocol.md, "Time and threads"). */
  private final Ticker ticker;
  private final Waiter waiter;
  /** Where {@link #end} arms the timeout of the future it returns. */
  private final Scheduler timeouts;
  private final Engine engine;
  /**
   * {@code ackTimeout} + {@code settleTimeout}, the longest a SYNC request waits in all, and how long an ASYNC update's
   * reply may take: computed once, not per send.
   */
  private final Duration syncWait;

  /** @param outbox the ASYNC queue, or null in SYNC mode */
  OwnerWrites(ReplicationConfig config, Transport transport, FlushRules rules, OwnedSessions owned,
      TouchCoalescer touches, AsyncOutbox outbox, PendingInvalidations invalidations, ViewChanges views,
      ReplicationCounters counters, RateLimitedLog log, InstantSource clock, Ticker ticker, Waiter waiter, Scheduler timeouts,
      Engine engine) {
    this.config = config;
    this.transport = transport;
    this.rules = rules;
    this.owned = owned;
    this.touches = touches;
    this.outbox = outbox;
    this.invalidations = invalidations;
    this.views = views;
    this.counters = counters;
    this.log = log;
    this.clock = clock;
    this.ticker = ticker;
    this.waiter = waiter;
    this.timeouts = timeouts;
    this.engine = engine;
    this.syncWait = config.ackTimeout().plus(config.settleTimeout());
  }

  // ---- a request's flush ---------------------------------------------------------------------------------------

  FlushOutcome flush(OwnedSession session, Set<String> readNames) {
    if (outbox == null && engine.suspect(session)) {
      // The request ran across a pause: what it read or changed may be a copy the cluster moved on from. Its changes
      // stay pending; they are sent once the session is confirmed as still owned here, and dropped if it is not.
      return unconfirmed(session, "this node was paused while the request ran; the session is confirmed with the "
          + "cluster before it is served or replicated again");
    }
    OwnedSession.InFlight awaited;
    List<String> refused;
    synchronized (session) {
      NodeId to = engine.buddy();
      OwnedSession.Prepared prepared = session.prepare(rules, readNames, true);
      if (session.isFenced()) {
        return FlushOutcome.FENCED;
      }
      refused = prepared.refused();
      switch (prepared.kind()) {
        case NOTHING, TOUCH -> {
          if (prepared.touch() != null) {
            SessionMetadata metadata = prepared.metadata();
            long lag = config.touchLagBound(metadata.maxInactiveIntervalSeconds()).toMillis();
            touches.add(prepared.touch(), clock.millis() + lag); // time of day, as the tick drains them: a step moves a batch
          }
          // A parallel request's update may carry this request's changes: it must be acknowledged first.
          awaited = outbox == null ? session.unconfirmedSend() : null;
          if (awaited == null) {
            return prepared.touch() != null ? FlushOutcome.TOUCHED : FlushOutcome.NOTHING;
          }
        }
        default -> {
          SessionUpdate update = prepared.update();
          touches.forget(update.sessionId());
          if (outbox != null) {
            return queue(session, update, refused);
          }
          if (to == null && engine.aloneInView()) {
            owned.markUnprotected(session);
            return refused.isEmpty() ? FlushOutcome.NO_BUDDY : FlushOutcome.NOT_REPLICABLE;
          }
          awaited = to == null ? null : send(session, to, update);
        }
      }
    }
    FlushOutcome replicated = awaited == null ? awaitBuddyOrSolitude(session, session.version(), syncDeadline())
        : awaitConfirmed(session, awaited);
    return replicated.isConfirmed() && !refused.isEmpty() ? FlushOutcome.NOT_REPLICABLE : replicated;
  }

  private FlushOutcome queue(OwnedSession session, SessionUpdate update, List<String> refused) {
    if (!outbox.offer(session, update)) {
      counters.asyncOverflows.increment();
      owned.markUnprotected(session);
      log.warn("overflow", "Async replication queue is full (" + config.asyncQueueCapacity() + " sessions);"
          + " session [" + session.id() + "] will be sent in full by the maintenance tick");
      return refused.isEmpty() ? FlushOutcome.OVERFLOWED : FlushOutcome.NOT_REPLICABLE;
    }
    return refused.isEmpty() ? FlushOutcome.QUEUED : FlushOutcome.NOT_REPLICABLE;
  }

  /**
   * Under the session's lock: hands the update to the transport and records it as the session's newest. Its reply may
   * take the whole SYNC wait ({@code ackTimeout} + {@code settleTimeout}): the one deadline is the transport's, and
   * {@link #awaitReply} decides before it whether to stop waiting.
   */
  private OwnedSession.InFlight send(OwnedSession session, NodeId to, SessionUpdate update) {
    countSent(update);
    return session.sent(to, update.version(), transport.request(to, update.toMessage(), syncWait()));
  }

  private Duration syncWait() {
    return syncWait;
  }

  private void countSent(SessionUpdate update) {
    if (update instanceof SessionUpdate.Full) {
      counters.fullsSent.increment();
    } else {
      counters.deltasSent.increment();
    }
    counters.payloadBytesSent.add(update.payloadBytes());
  }

  /**
   * Waits until a buddy acknowledged {@code first} or a later update of the session, re-sending the whole session
   * after a failure as the class comment says.
   */
  private FlushOutcome awaitConfirmed(OwnedSession session, OwnedSession.InFlight first) {
    return awaitConfirmed(session, first, syncDeadline());
  }

  /** The end of a SYNC wait starting now, on the ticker. */
  private long syncDeadline() {
    return ticker.read() + syncWait().toNanos();
  }

  private FlushOutcome awaitConfirmed(OwnedSession session, OwnedSession.InFlight first, long settleDeadline) {
    OwnedSession.InFlight attempt = first;
    boolean gapResent = false;
    while (true) {
      long viewSeen = views.current();
      Failure failure;
      try {
        Message answer = awaitReply(session, attempt, settleDeadline);
        Optional<FlushOutcome> decided = decide(session, attempt.to(), answer);
        if (decided.isPresent()) {
          return decided.get() == FlushOutcome.REPLICATED ? formerIdsEnded(session, settleDeadline) : decided.get();
        }
        failure = answer instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.GAP
            || answer instanceof Message.Nack unknown && unknown.reason() == Message.Nack.Reason.UNKNOWN_SESSION
            ? Failure.GAP : Failure.REFUSED;
        if (answer instanceof Message.Nack full && full.reason() == Message.Nack.Reason.BACKUP_STORE_FULL
            && attempt.to().equals(engine.buddy()) && !session.isProtectedAt(attempt.version())) {
          return unconfirmed(session, "buddy " + attempt.to().value() + " has no room for it (" + full.detail() + ")");
        }
      } catch (TimeoutException e) {
        failure = timedOut(session, attempt.to());
      } catch (ExecutionException e) {
        failure = failed(session, attempt.to(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return unconfirmed(session, "interrupted while waiting for the buddy");
      }
      long now = ticker.read();
      // A gap is the protocol working (the buddy lacked the base of a delta): the first one is re-sent in full at
      // once, whatever the deadline.
      boolean immediate = failure == Failure.GAP && !gapResent;
      gapResent |= failure == Failure.GAP;
      if (now - settleDeadline >= 0 && !immediate) {
        return unconfirmed(session, "no buddy acknowledged within ackTimeout " + config.ackTimeout().toMillis()
            + "ms plus settleTimeout " + config.settleTimeout().toMillis() + "ms");
      }
      if (!immediate) {
        try {
          // A buddy that failed at once (refused, connection lost) is retried when the view changes, or shortly.
          views.awaitChange(viewSeen, Math.min(RETRY_PAUSE_NANOS, settleDeadline - now));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return unconfirmed(session, "interrupted while waiting for the membership view");
        }
      }
      Optional<OwnedSession.InFlight> again = resend(session, attempt.version());
      if (again.isEmpty()) {
        return engine.buddy() == null && !engine.aloneInView()
            ? awaitBuddyOrSolitude(session, attempt.version(), settleDeadline)
            : settledWithoutResend(session, attempt.version(), settleDeadline);
      }
      attempt = again.get();
    }
  }

  private enum Failure { GAP, REFUSED, TIMED_OUT, UNREACHABLE }

  /**
   * The reply to {@code attempt}, waiting past {@code ackTimeout} (the acknowledgement is then counted slow) for as
   * long as the buddy it went to is still the one the view names and {@code deadline} has not passed. Throws {@link
   * TimeoutException} when either ends the wait; a closed connection fails the reply itself, at once.
   */
  private Message awaitReply(OwnedSession session, OwnedSession.InFlight attempt, long deadline)
      throws ExecutionException, TimeoutException, InterruptedException {
    CompletableFuture<Message> reply = attempt.reply();
    long firstWait = Math.min(config.ackTimeout().toNanos(), deadline - ticker.read());
    try {
      return waiter.await(reply, Math.max(0, firstWait));
    } catch (TimeoutException slow) {
      counters.slowAcks.increment();
      log.warn("slow:" + attempt.to(), "Session [" + session.id() + "]: buddy " + attempt.to().value()
          + " has not acknowledged within " + config.ackTimeout().toMillis() + "ms; waiting for its reply while it"
          + " stays the buddy and its connection stays open, at most " + syncWait().toMillis() + "ms in all");
    }
    while (true) {
      long left = deadline - ticker.read();
      if (left <= 0 || !attempt.to().equals(engine.buddy())) {
        throw new TimeoutException("no acknowledgement from " + attempt.to().value());
      }
      try {
        return waiter.await(reply, Math.min(left, PATIENCE_SLICE_NANOS));
      } catch (TimeoutException stillWaiting) {
        // look at the view again
      }
    }
  }

  /** REPLICATED or FENCED when the answer settles the flush; empty when it must be retried. */
  private Optional<FlushOutcome> decide(OwnedSession session, NodeId to, Message answer) {
    if (answer instanceof Message.Ack ack) {
      counters.acks.increment();
      if (to.equals(engine.buddy())) {
        CompletableFuture<Boolean> anew = owned.markProtected(session, ack.version());
        if (anew != null) {
          engine.protectedAnew(session, to, anew);
        }
      }
      return Optional.of(FlushOutcome.REPLICATED);
    }
    if (answer instanceof Message.Nack nack) {
      switch (nack.reason()) {
        case STALE_EPOCH, INVALIDATED -> {
          engine.fence(session, "buddy " + to.value() + " answered " + nack.reason() + ": " + nack.detail());
          return Optional.of(FlushOutcome.FENCED);
        }
        case GAP, UNKNOWN_SESSION -> {
          counters.gapResends.increment();
          owned.markUnprotected(session);
          return Optional.empty();
        }
        default -> {
          counters.refusedByBuddy.increment();
          if (nack.reason() == Message.Nack.Reason.BACKUP_STORE_FULL) {
            counters.backupRefusalsFull.increment();
          }
          log.warn("refused:" + to, "Buddy " + to.value() + " refused an update of session [" + session.id() + "]: "
              + nack.reason() + " " + nack.detail());
          owned.markUnprotected(session);
          return Optional.empty();
        }
      }
    }
    counters.refusedByBuddy.increment();
    log.warn("unexpected:" + to, "Buddy " + to.value() + " answered with an unexpected " + answer.type());
    owned.markUnprotected(session);
    return Optional.empty();
  }

  /**
   * Under the session's lock: the whole session, at its current version (which includes {@code atLeast}), to the
   * buddy the view names now. Empty when there is nothing to send: the session was fenced or ended, this node is
   * alone, or a buddy already acknowledged a version that includes {@code atLeast}.
   */
  private Optional<OwnedSession.InFlight> resend(OwnedSession session, long atLeast) {
    synchronized (session) {
      NodeId to = engine.buddy();
      if (to == null || session.isProtectedAt(atLeast)) {
        return Optional.empty();
      }
      Optional<SessionUpdate.Full> full = session.resync(rules);
      if (full.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(send(session, to, full.get()));
    }
  }

  /**
   * No member can be the buddy, but the view lists others (they refuse connections: killed, or a firewall rejects):
   * within the SYNC wait, the view may drop them, and this node is alone and says so, or one of them may answer
   * again and become the buddy, which is sent the session in full. Neither within the wait: the outcome is unknown.
   * Answered at once, a request to the survivor of a killed buddy was a 503 for the second or two until the view
   * dropped the dead member, where waiting makes it a slow 200.
   *
   * @param version the version the request's changes are at
   * @param deadline the end of the request's SYNC wait, on the ticker
   */
  private FlushOutcome awaitBuddyOrSolitude(OwnedSession session, long version, long deadline) {
    while (true) {
      long viewSeen = views.current();
      if (engine.buddy() != null || engine.aloneInView()) {
        Optional<OwnedSession.InFlight> attempt = resend(session, version);
        return attempt.isPresent() ? awaitConfirmed(session, attempt.get(), deadline)
            : settledWithoutResend(session, version, deadline);
      }
      long left = deadline - ticker.read();
      if (left <= 0) {
        return unconfirmed(session, NO_BUDDY_IN_A_VIEW_OF_SEVERAL);
      }
      try {
        views.awaitChange(viewSeen, Math.min(RETRY_PAUSE_NANOS, left)); // the overlay changes without a new view
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return unconfirmed(session, "interrupted while waiting for the membership view");
      }
    }
  }

  /** Why {@link #resend} had nothing to send, as the flush's outcome. */
  private FlushOutcome settledWithoutResend(OwnedSession session, long version, long deadline) {
    boolean replicated;
    synchronized (session) {
      if (session.isFenced()) {
        return FlushOutcome.FENCED;
      }
      if (session.isGone()) {
        return FlushOutcome.NOTHING; // ended meanwhile: the invalidation decides what the client is told
      }
      replicated = session.isProtectedAt(version);
      if (!replicated && engine.aloneInView()) {
        owned.markUnprotected(session);
        return FlushOutcome.NO_BUDDY;
      }
    }
    if (replicated) {
      return formerIdsEnded(session, deadline); // outside the session's lock: it waits for the buddy's answers
    }
    return unconfirmed(session, NO_BUDDY_IN_A_VIEW_OF_SEVERAL);
  }

  /**
   * The flush's changes are on the buddy: REPLICATED once that buddy also ended each id the session gave up at a
   * login, if it protected the session anew (see {@link OwnedSession#formerIdsEnded}); FENCED when it holds one of
   * them at a higher epoch, UNCONFIRMED when it did not answer. Waits until {@code deadline}, and at least one
   * {@code ackTimeout}: the ends went out just now, after the acknowledgement the wait was spent on.
   */
  private FlushOutcome formerIdsEnded(OwnedSession session, long deadline) {
    CompletableFuture<Boolean> ended = session.formerIdsEnded();
    if (Boolean.TRUE.equals(ended.getNow(false))) {
      return FlushOutcome.REPLICATED;
    }
    try {
      long wait = Math.max(deadline - ticker.read(), config.ackTimeout().toNanos());
      if (waiter.await(ended, wait)) {
        return FlushOutcome.REPLICATED;
      }
    } catch (TimeoutException | ExecutionException e) {
      // not confirmed: as a refusal
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (session.isFenced()) {
      return FlushOutcome.FENCED;
    }
    return unconfirmed(session, "its buddy did not confirm the end of the ids it had before a login");
  }

  private Failure timedOut(OwnedSession session, NodeId to) {
    counters.ackTimeouts.increment();
    log.warn("timeout:" + to, "Session [" + session.id() + "]: no acknowledgement from buddy " + to.value()
        + " in time; re-sending the session to the buddy the view names");
    owned.markUnprotected(session);
    return Failure.TIMED_OUT;
  }

  private Failure failed(OwnedSession session, NodeId to, Throwable cause) {
    if (cause instanceof TimeoutException) {
      return timedOut(session, to);
    }
    counters.sendFailures.increment();
    log.warn("failed:" + to, "Session [" + session.id() + "]: replication to buddy " + to.value() + " failed: " + cause);
    owned.markUnprotected(session);
    return Failure.UNREACHABLE;
  }

  private FlushOutcome unconfirmed(OwnedSession session, String why) {
    counters.unconfirmedWrites.increment();
    log.warn("unconfirmed", "Session [" + session.id() + "]: " + why + "; the request is answered 503 and the session"
        + " will be re-sent in full");
    owned.markUnprotected(session);
    return FlushOutcome.UNCONFIRMED;
  }

  // ---- id changes and the end of a session ---------------------------------------------------------------------

  /** The container changed the session's id (at login): the buddy re-keys its copy. */
  FlushOutcome changeId(OwnedSession session, String oldId, String newId) {
    OwnedSession.InFlight awaited;
    synchronized (session) {
      NodeId to = engine.buddy();
      long version = session.changeId(newId);
      owned.rekey(oldId, newId, session);
      touches.forget(oldId);
      engine.idGivenUp(session, oldId);
      Message.IdChange change = new Message.IdChange(oldId, newId, session.epoch(), version);
      if (outbox != null) {
        outbox.offerControl(session, change);
        return FlushOutcome.QUEUED;
      }
      if (to == null && engine.aloneInView()) {
        owned.markUnprotected(session);
        return FlushOutcome.NO_BUDDY;
      }
      awaited = to == null ? null : session.sent(to, version, transport.request(to, change, syncWait()));
    }
    return awaited == null ? awaitBuddyOrSolitude(session, session.version(), syncDeadline())
        : awaitConfirmed(session, awaited);
  }

  /**
   * Ends the session here and tells the buddy, in both modes: an invalidation is never coalesced away or left
   * behind in a queue, so that a logout sticks. Returns when the buddy acknowledged it (REPLICATED), or that it is
   * alone (NO_BUDDY); the future completes with UNCONFIRMED if no acknowledgement came within the wait, and the
   * maintenance tick goes on re-sending it.
   */
  CompletableFuture<FlushOutcome> end(OwnedSession session, InvalidateReason reason) {
    Message.Invalidate invalidate;
    CompletableFuture<FlushOutcome> acknowledged;
    synchronized (session) {
      NodeId to = engine.buddy();
      invalidate = new Message.Invalidate(session.id(), session.epoch(), session.end(), reason);
      owned.retire(session);
      engine.ended(session);
      touches.forget(invalidate.sessionId());
      // Re-sent by the maintenance tick until the buddy holding the copy now acknowledged it (11.3.43).
      acknowledged = invalidations.remember(invalidate, to);
      if (to == null && engine.aloneInView()) {
        return CompletableFuture.completedFuture(FlushOutcome.NO_BUDDY);
      }
      if (to == null) {
        // Not alone: a member the view lists may hold the session. The tick re-sends the invalidation to the next
        // buddy; acknowledged within the ack timeout it is confirmed, else unknown.
        return unconfirmedAfterAckTimeout(acknowledged.copy());
      }
      if (outbox != null) {
        // Not behind the queue: under load an ASYNC backlog takes longer than the ack timeout to drain, and a
        // logout must not wait for updates of other sessions. What is queued for this session is dropped; what the
        // sender already took goes out after this and the buddy's tombstone refuses it. The buddy may still hold
        // the session under an id whose change has not gone out yet: that id is invalidated too.
        for (String oldId : outbox.withdraw(session)) {
          Message.Invalidate underOldId = new Message.Invalidate(oldId, invalidate.epoch(), invalidate.version(),
              reason);
          invalidations.remember(underOldId, to);
          sendInvalidation(to, underOldId);
        }
      }
      sendInvalidation(to, invalidate);
    }
    return unconfirmedAfterAckTimeout(acknowledged.copy());
  }

  /**
   * {@code outcome}, completed UNCONFIRMED if nothing completed it within the ack timeout, as {@code completeOnTimeout}
   * did, and armed on the engine's {@link Scheduler.Lane#TIMEOUTS} lane: the simulation runs it in virtual time, and
   * production on the JDK's shared delay thread, where {@code completeOnTimeout} ran it.
   */
  private CompletableFuture<FlushOutcome> unconfirmedAfterAckTimeout(CompletableFuture<FlushOutcome> outcome) {
    if (!outcome.isDone()) {
      Scheduler.Cancellable timeout = timeouts.schedule(() -> outcome.complete(FlushOutcome.UNCONFIRMED),
          config.ackTimeout());
      outcome.whenComplete((done, failure) -> timeout.cancel());
    }
    return outcome;
  }

  CompletionStage<Message> sendInvalidation(NodeId to, Message.Invalidate invalidate) {
    counters.invalidationsSent.increment();
    return transport.request(to, invalidate).whenComplete((reply, failure) -> {
      if (reply != null) {
        invalidations.answered(invalidate, to, reply);
      }
    });
  }

  // ---- ASYNC ------------------------------------------------------------------------------------------------------

  /**
   * The async sender thread's send function, called with no lock held (see {@link AsyncOutbox}); returns the reply,
   * or null when this node is alone.
   */
  CompletionStage<?> sendQueued(OwnedSession session, Object item, boolean more) {
    NodeId to = engine.buddy();
    if (to == null) {
      if (item instanceof SessionUpdate) {
        owned.markUnprotected(session);
      }
      return null;
    }
    Message message;
    if (item instanceof SessionUpdate update) {
      countSent(update);
      message = update.toMessage();
    } else {
      message = (Message) item;
    }
    // A lone update is written at once by this thread; a burst is left to the transport's I/O thread, to go in one
    // write. Its reply may take as long as a SYNC request would wait: a buddy that is behind (a collection pause, a CPU
    // cap) answers late, and failing the update at ackTimeout re-sent the whole session to it, adding to its backlog
    // (the load benchmark counted over a thousand such re-sends per step). A buddy that dies closes the connection,
    // which fails the reply at once; one that hangs leaves the view, whose change re-protects every session on the
    // next buddy.
    CompletableFuture<Message> reply = more ? transport.requestBatched(to, message, syncWait())
        : transport.request(to, message, syncWait());
    reply.whenComplete((answer, failure) -> onAsyncReply(session, to, answer, failure));
    return reply;
  }

  /**
   * Records a queued update's reply, on the thread that completes it. An acknowledgement of a session that is
   * protected already is only counted; everything else (the first acknowledgement, a refusal, a failure, a gap's
   * full resend) takes the session's lock, so it goes to the outbox's reply thread: the transport's I/O thread must
   * never wait for a lock that a request holds, which under a CPU cap can last as long as that request's thread is
   * descheduled.
   */
  private void onAsyncReply(OwnedSession session, NodeId to, Message answer, Throwable failure) {
    if (answer instanceof Message.Ack && session.isProtectedWithoutLock()) {
      counters.acks.increment();
      return;
    }
    outbox.replies().execute(() -> recordAsyncReply(session, to, answer, failure));
  }

  private void recordAsyncReply(OwnedSession session, NodeId to, Message reply, Throwable failure) {
    if (failure != null) {
      failed(session, to, failure instanceof CompletionException ? failure.getCause() : failure);
      return;
    }
    if (reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.GAP) {
      counters.gapResends.increment();
      synchronized (session) {
        Optional<SessionUpdate.Full> full = session.resync(rules);
        if (full.isPresent() && !outbox.offer(session, full.get())) {
          owned.markUnprotected(session);
        }
      }
      return;
    }
    decide(session, to, reply);
  }
}
