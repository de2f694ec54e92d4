package io.tandem.core.replicator;

import io.tandem.core.wire.Message;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Invalidations this node sent and its buddy has not acknowledged yet. They are re-sent by the maintenance tick
 * until acknowledged, and while one is pending this node never takes the session back in from the cluster (its
 * buddy may still hold the copy the invalidation is meant to remove): a logout sticks.
 *
 * <p>Implementation notes: a concurrent map; an entry is added by the thread that ends the session and removed by
 * whichever thread sees the acknowledgement, which also completes the entry's future (never under a lock).
 */
final class PendingInvalidations {
  private final ConcurrentHashMap<String, Entry> byId = new ConcurrentHashMap<>();

  private record Entry(Message.Invalidate invalidate, CompletableFuture<FlushOutcome> acknowledged) {}

  /**
   * Remembers an invalidation until acknowledged; the future completes with REPLICATED when it is, FENCED when the
   * buddy holds the session at a later epoch.
   */
  CompletableFuture<FlushOutcome> remember(Message.Invalidate invalidate) {
    Entry entry = new Entry(invalidate, new CompletableFuture<>());
    byId.put(invalidate.sessionId(), entry);
    return entry.acknowledged();
  }

  boolean isPending(String sessionId) {
    return byId.containsKey(sessionId);
  }

  /**
   * The buddy answered {@code invalidate}: forget it if the answer settles it (anything but a refusal). A buddy that
   * holds the session at a later epoch ({@code STALE_EPOCH}) settles it as {@code FENCED}: another node took the
   * session over while this one ended it (this node was paused or cut off), and serves it on; answering the logout
   * 200 would let the id be served after it (the simulation found this, seed 1975).
   */
  void answered(Message.Invalidate invalidate, Message reply) {
    boolean settled = reply instanceof Message.Ack
        || reply instanceof Message.Nack nack && nack.reason() != Message.Nack.Reason.REFUSED;
    if (!settled) {
      return;
    }
    boolean fenced = reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.STALE_EPOCH;
    Entry entry = byId.get(invalidate.sessionId());
    if (entry != null && entry.invalidate().equals(invalidate) && byId.remove(invalidate.sessionId(), entry)) {
      entry.acknowledged().complete(fenced ? FlushOutcome.FENCED : FlushOutcome.REPLICATED);
    }
  }

  Collection<Message.Invalidate> all() {
    return byId.values().stream().map(Entry::invalidate).toList();
  }
}
