package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.BulkTransfer;
import io.tandem.core.wire.MessageCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Re-protects sessions whose buddy has no copy: after a buddy died or a new one joined, after an owner died and
 * its backups were adopted, after a timeout or an async overflow. Sessions go out in bulk messages of about
 * {@code batchBytes}, one batch in flight at a time, paced by a {@link TokenBucket} so live traffic keeps its
 * budget.
 *
 * <p>A batch holds at most {@code maxSessionSize} bytes as the wire carries them (beyond one session, which is never
 * more since {@link CopyBudget} keeps every copy within it), so that it always fits in a frame: a small batch topped
 * up with one large session could pass {@code maxFrameSize}, be refused by the buddy's decoder, and fail whole on
 * every tick. A copy still over the limit (a session whose metadata alone is) is skipped, not sent.
 *
 * <p>Implementation notes: {@code queue}, {@code inFlight}, {@code pumpScheduled} and {@code carried} are guarded by
 * {@code this}; batches are built and sent on the engine's maintenance scheduler ({@link Scheduler.Lane#MAINTENANCE}),
 * replies arrive on transport threads.
 */
final class StateTransfer {
  /** The smallest budget is this fraction of {@code batchBytes}: six answered batches take it back to the whole. */
  private static final long MIN_BUDGET_FRACTION = 64;
  private final Scheduler scheduler;
  private final TokenBucket bucket;
  private final long batchBytes;
  private final Supplier<Optional<NodeId>> buddy;
  private final BiFunction<NodeId, Message, CompletableFuture<Message>> send;
  private final FlushRules rules;
  private final Callbacks callbacks;
  @GuardedBy("this")
  private final Set<OwnedSession> queue = new LinkedHashSet<>();
  @GuardedBy("this")
  private boolean inFlight;
  @GuardedBy("this")
  private boolean pumpScheduled;
  /**
   * A session whose copy was built for a batch it did not fit in: the first of the next batch. Its copy is kept rather
   * than built again, since building it said it is sent ({@link OwnedSession#needsFull()} is false from then on).
   */
  @GuardedBy("this")
  private Carried carried;
  /**
   * The bytes the next batch may carry: {@code batchBytes}, halved after each batch the buddy did not answer in time
   * (down to 1/{@link #MIN_BUDGET_FRACTION} of it, and one session at least) and doubled back after each it did. A buddy that is slow but alive applies a late batch all
   * the same and its answer is dropped; sending it as much again at once only repeated that for as long as the
   * buddy stayed slow (docs/protocol.md 8.5).
   */
  @GuardedBy("this")
  private long budget;

  private record Carried(OwnedSession session, SessionSnapshot snapshot, long payloadBytes, long wireBytes) {}

  interface Callbacks {
    void protectedAt(OwnedSession session, NodeId buddy, long version);

    /** The buddy refused this session's copy, as it would have refused it sent alone. */
    void refused(OwnedSession session, NodeId buddy, Message.Nack refusal);

    void failed(List<OwnedSession> sessions, NodeId buddy, Throwable cause);

    /** The session's copy is {@code wireBytes}, over {@code maxSessionSize} even without attributes: not sent. */
    void skippedTooLarge(OwnedSession session, long wireBytes);
  }

  StateTransfer(
      Scheduler scheduler,
      TokenBucket bucket,
      long batchBytes,
      Supplier<Optional<NodeId>> buddy,
      BiFunction<NodeId, Message, CompletableFuture<Message>> send,
      FlushRules rules,
      Callbacks callbacks) {
    this.scheduler = scheduler;
    this.bucket = bucket;
    this.batchBytes = batchBytes;
    this.budget = batchBytes;
    this.buddy = buddy;
    this.send = send;
    this.rules = rules;
    this.callbacks = callbacks;
  }

  void enqueue(OwnedSession session) {
    synchronized (this) {
      queue.add(session);
    }
    schedulePump(0);
  }

  synchronized int queued() {
    return queue.size() + (inFlight ? 1 : 0) + (carried != null ? 1 : 0);
  }

  private synchronized void schedulePump(long delayMillis) {
    if (pumpScheduled || inFlight || queue.isEmpty() && carried == null) {
      return;
    }
    pumpScheduled = true;
    scheduler.schedule(this::pump, Duration.ofMillis(delayMillis));
  }

  private synchronized OwnedSession poll() {
    Iterator<OwnedSession> it = queue.iterator();
    if (!it.hasNext()) {
      return null;
    }
    OwnedSession next = it.next();
    it.remove();
    return next;
  }

  private void pump() {
    synchronized (this) {
      pumpScheduled = false;
      if (inFlight || queue.isEmpty() && carried == null) {
        return;
      }
    }
    Optional<NodeId> target = buddy.get();
    if (target.isEmpty()) {
      return; // alone: nothing to send to; the next view change enqueues again
    }
    long wait = bucket.millisUntilAvailable();
    if (wait > 0) {
      schedulePump(wait);
      return;
    }
    Carried left;
    long batchBudget;
    synchronized (this) {
      inFlight = true;
      left = carried;
      carried = null;
      batchBudget = budget;
    }
    // Snapshots are built outside this object's lock: building takes each session's lock, and request threads
    // enqueue while holding a session's lock.
    List<OwnedSession> sessions = new ArrayList<>();
    List<SessionSnapshot> snapshots = new ArrayList<>();
    long bytes = 0;
    long wireBytes = 0;
    if (left != null && left.session().isActive()) {
      sessions.add(left.session());
      snapshots.add(left.snapshot());
      bytes += left.payloadBytes();
      wireBytes += left.wireBytes();
    }
    OwnedSession session;
    while (bytes < batchBudget && (session = poll()) != null) {
      if (!session.needsFull()) {
        continue; // a request already sent it in full
      }
      Optional<SessionUpdate.Full> full = session.resync(rules);
      if (full.isEmpty()) {
        continue;
      }
      SessionSnapshot snapshot = full.get().snapshot();
      long size = MessageCodec.snapshotBytes(snapshot);
      if (size > rules.maxSessionSize) {
        callbacks.skippedTooLarge(session, size);
        continue;
      }
      if (!sessions.isEmpty() && wireBytes + size > rules.maxSessionSize) {
        synchronized (this) {
          carried = new Carried(session, snapshot, full.get().payloadBytes(), size);
        }
        break;
      }
      sessions.add(session);
      snapshots.add(snapshot);
      bytes += full.get().payloadBytes();
      wireBytes += size;
    }
    if (sessions.isEmpty()) {
      synchronized (this) {
        inFlight = false;
      }
      schedulePump(0);
      return;
    }
    bucket.consume(bytes);
    NodeId to = target.get();
    long batchBytesSent = bytes;
    send.apply(to, new BulkTransfer(BulkTransfer.Purpose.BACKUP, snapshots))
        .whenComplete(
            (reply, failure) -> {
              boolean answered = failure == null && (reply instanceof Message.Ack || reply instanceof Message.BulkRefusals);
              adjustBudget(answered, failure);
              if (answered) {
                Map<String, Message.Nack> refused = reply instanceof Message.BulkRefusals some
                    ? some.refusals().stream().collect(Collectors.toMap(Message.BulkRefusals.Refusal::sessionId,
                        Message.BulkRefusals.Refusal::nack, (first, second) -> first))
                    : Map.of();
                for (int i = 0; i < sessions.size(); i++) {
                  Message.Nack refusal = refused.get(sessions.get(i).id());
                  if (refusal == null) {
                    callbacks.protectedAt(sessions.get(i), to, snapshots.get(i).version());
                  } else {
                    callbacks.refused(sessions.get(i), to, refusal);
                  }
                }
                rules.counters().stateTransferSessions.add(sessions.size() - refused.size());
                rules.counters().stateTransferBytes.add(batchBytesSent);
              } else {
                callbacks.failed(
                    sessions, to, failure != null ? failure : new IllegalStateException("buddy answered " + reply));
              }
              synchronized (this) {
                inFlight = false;
              }
              schedulePump(0);
            });
  }

  /** The next batch's bytes after this one's answer: see {@code budget}. */
  private synchronized void adjustBudget(boolean answered, Throwable failure) {
    if (answered) {
      budget = Math.min(batchBytes, budget * 2);
    } else if (failure instanceof TimeoutException || failure != null && failure.getCause() instanceof TimeoutException) {
      budget = Math.max(batchBytes / MIN_BUDGET_FRACTION, budget / 2); // one session goes in a batch at least
    }
  }

  /** The bytes the next batch may carry (for tests). */
  synchronized long batchBudget() {
    return budget;
  }
}
