package io.tandem.core.replicator;

import io.tandem.core.spi.NodeId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request's flush that has been sent and not yet settled: the container either {@link #await() waits} for its
 * outcome on the request's thread, or asks to be told ({@link #settle}), so that no thread sleeps through the
 * round trip to the buddy.
 *
 * <p>Settling is split by how common each case is. The acknowledgement of a protected session's update, the answer
 * to nearly every SYNC request, settles the flush on the thread that delivers it (the transport's I/O thread),
 * taking no lock. Everything else (a refusal, a lost connection, a timeout, an acknowledgement that makes the session
 * protected again, or a ring change that names another buddy while the reply is awaited) is handed to the
 * caller's executor, whose thread runs the same wait-and-retry as {@link #await()}, with the same deadline: from the
 * first send, {@code ackTimeout} + {@code settleTimeout}.
 *
 * <p>Implementation notes: {@code handedOver} decides, once, who completes {@code settled}: the reply's thread (a
 * plain acknowledgement) or the executor's (everything else). While a settle is under way the flush is in its
 * writes' {@link OwnerWrites#ringChanged() waiting set}, which hands it to the executor when the ring names another
 * buddy, as a waiting request thread would notice by looking.
 */
public final class PendingFlush {
  private final OwnerWrites writes;
  private final OwnedSession session;
  private final OwnedSession.InFlight first;
  private final List<String> refused;
  private final FlushOutcome decided;
  private final long sentAtNanos;
  private final AtomicBoolean handedOver = new AtomicBoolean();
  private final CompletableFuture<FlushOutcome> settled = new CompletableFuture<>();
  private volatile Executor waiting;

  /** A flush with nothing to wait for. */
  PendingFlush(FlushOutcome decided) {
    this(null, null, null, List.of(), decided, 0);
  }

  /** A flush waiting for the reply to {@code first}, sent at {@code sentAtNanos}. */
  PendingFlush(OwnerWrites writes, OwnedSession session, OwnedSession.InFlight first, List<String> refused,
      long sentAtNanos) {
    this(writes, session, first, refused, null, sentAtNanos);
  }

  private PendingFlush(OwnerWrites writes, OwnedSession session, OwnedSession.InFlight first, List<String> refused,
      FlushOutcome decided, long sentAtNanos) {
    this.writes = writes;
    this.session = session;
    this.first = first;
    this.refused = refused;
    this.decided = decided;
    this.sentAtNanos = sentAtNanos;
  }

  /** The outcome when the flush needed no reply (nothing to send, ASYNC, alone, fenced); empty while one is awaited. */
  public Optional<FlushOutcome> decided() {
    return Optional.ofNullable(decided);
  }

  /** Waits on this thread until the flush is settled, as the class comment says. */
  public FlushOutcome await() {
    if (decided != null) {
      return decided;
    }
    return withRefusals(writes.awaitConfirmed(session, first, sentAtNanos));
  }

  /**
   * The outcome, once settled: completed by the reply's thread for a plain acknowledgement, else by a thread of
   * {@code waiting}, which may block there up to the SYNC wait. Call once.
   */
  public CompletableFuture<FlushOutcome> settle(Executor waiting) {
    if (decided != null) {
      return CompletableFuture.completedFuture(decided);
    }
    this.waiting = waiting;
    writes.waitingForReply(this);
    first.reply().whenComplete((answer, failure) -> {
      if (failure == null && writes.acknowledgedAtOnce(session, first, answer, sentAtNanos)) {
        if (handedOver.compareAndSet(false, true)) {
          writes.settled(this);
          settled.complete(withRefusals(FlushOutcome.REPLICATED));
        }
      } else {
        handOver();
      }
    });
    return settled;
  }

  /** The node the awaited update went to. */
  NodeId target() {
    return first.to();
  }

  /** Lets a thread of the caller's executor settle the flush by waiting, unless it is settled or handed over already. */
  void handOver() {
    if (!handedOver.compareAndSet(false, true)) {
      return;
    }
    writes.settled(this);
    try {
      waiting.execute(() -> {
        try {
          settled.complete(await());
        } catch (RuntimeException | Error e) {
          settled.completeExceptionally(e);
          throw e;
        }
      });
    } catch (RuntimeException rejected) { // the container is stopping: nobody is left to answer
      settled.completeExceptionally(rejected);
    }
  }

  private FlushOutcome withRefusals(FlushOutcome replicated) {
    return replicated.isConfirmed() && !refused.isEmpty() ? FlushOutcome.NOT_REPLICABLE : replicated;
  }
}
