package io.tandem.tomcat;

import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.PendingFlush;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What one request sent to the buddy when it ended (a flush of each session it used, and the invalidations or id
 * changes it made), until it is settled into the {@link Verdict} the client may be told: awaited on the request's
 * thread, or settled by whichever thread delivers the last answer, so that the response can wait for the buddy
 * without a thread waiting with it.
 *
 * <p>Implementation notes: built on the request's thread, inside its {@link RequestTracking} scope, which is where
 * the flushes encode and report values that cannot be replicated; read afterwards by the thread that settles it,
 * which the futures' completion orders after everything the request's thread wrote. Immutable once built.
 */
final class ReplicationUnderWay {
  private final TandemManager manager;
  private final RequestTracking tracked;
  private final boolean sync;
  private final long startedNanos;
  private final List<TandemSession> sessions;
  private final List<PendingFlush> flushes;
  private final List<CompletableFuture<FlushOutcome>> confirmations;

  private ReplicationUnderWay(TandemManager manager, RequestTracking tracked, long startedNanos,
      List<TandemSession> sessions, List<PendingFlush> flushes) {
    this.manager = manager;
    this.tracked = tracked;
    this.sync = manager.synchronous();
    this.startedNanos = startedNanos;
    this.sessions = sessions;
    this.flushes = flushes;
    // Invalidations and id changes stick in both modes; each future completes within the ack timeout.
    this.confirmations = List.copyOf(tracked.confirmations());
  }

  /** Sends, on the request's thread and within its tracking, what the request changed in every session it used. */
  static ReplicationUnderWay begin(TandemManager manager, RequestTracking tracked) {
    return RequestTracking.within(tracked, () -> {
      long started = System.nanoTime();
      List<TandemSession> sessions = new ArrayList<>(tracked.sessions());
      List<PendingFlush> flushes = new ArrayList<>(sessions.size());
      for (TandemSession session : sessions) {
        flushes.add(manager.beginFlush(session, tracked.reads()));
      }
      return new ReplicationUnderWay(manager, tracked, started, sessions, flushes);
    });
  }

  /** True when nothing sent is awaited any more: the verdict is known without waiting. */
  boolean isDecided() {
    return flushes.stream().allMatch(f -> f.decided().isPresent()) && confirmations.stream().allMatch(CompletableFuture::isDone);
  }

  /** Waits on this thread (within the request's tracking, for what a re-send reports) and returns the verdict. */
  Verdict awaitVerdict() {
    return RequestTracking.within(tracked, () -> {
      List<FlushOutcome> outcomes = new ArrayList<>(flushes.size());
      for (PendingFlush flush : flushes) {
        outcomes.add(flush.await());
      }
      return verdict(outcomes);
    });
  }

  /**
   * The verdict once every answer came: a plain acknowledgement settles its flush on the thread that delivers it,
   * anything else runs the flush's wait-and-retry on a thread of {@code waiting} (within the request's tracking).
   */
  CompletableFuture<Verdict> settle(Executor waiting) {
    Executor tracking = work -> waiting.execute(() -> RequestTracking.within(tracked, () -> {
      work.run();
      return null;
    }));
    List<CompletableFuture<FlushOutcome>> settling = new ArrayList<>(flushes.size());
    for (PendingFlush flush : flushes) {
      settling.add(flush.settle(tracking));
    }
    List<CompletableFuture<?>> all = new ArrayList<>(settling);
    all.addAll(confirmations);
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .thenApply(done -> verdict(settling.stream().map(CompletableFuture::join).toList()));
  }

  private Verdict verdict(List<FlushOutcome> outcomes) {
    Verdict verdict = Verdict.OK;
    for (int i = 0; i < outcomes.size(); i++) {
      FlushOutcome outcome = outcomes.get(i);
      manager.recordFlush(outcome, startedNanos);
      if (sync) { // ASYNC promises nothing of a write: only its invalidations are confirmed (below)
        verdict = verdict.worst(Verdict.of(outcome, sessions.get(i).baseId()));
      }
    }
    for (CompletableFuture<FlushOutcome> confirmation : confirmations) {
      if (!confirmation.join().isConfirmed()) {
        verdict = verdict.worst(Verdict.endUnconfirmed());
      }
    }
    if (sync && tracked.refusedSomething()) {
      verdict = verdict.worst(Verdict.notReplicable(""));
    }
    if (verdict.kind() == Verdict.Kind.NOT_REPLICABLE && !tracked.notReplicableValues().isEmpty()) {
      verdict = Verdict.notReplicable(String.join("; ", tracked.notReplicableValues()));
    }
    return verdict;
  }
}
