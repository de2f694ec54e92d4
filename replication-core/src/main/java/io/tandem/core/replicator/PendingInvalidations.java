package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Invalidations this node sent that the member holding the session's copy has not acknowledged yet. They are re-sent
 * by the maintenance tick until that member answers, and while one is pending this node never takes the session back
 * in from the cluster (the copy the invalidation is meant to remove may still be there): a logout sticks.
 *
 * <p>Two answers matter, and they may come from two members. The request waits for the first acknowledgement from the
 * holder or from the buddy of the moment: when the view dropped the holder, its successor records the end as it would
 * store a write, and the logout is answered. The entry itself stays until the holder answers: a holder that was only
 * paused or cut off comes back with its copy, and another answer settling the entry left that copy to be adopted,
 * ended, the day the membership took this node for restarted (docs/protocol.md 11.3.43). An entry whose holder stays
 * silent is forgotten after {@code tombstoneTtl}, as this node's own tombstone of the session is.
 *
 * <p>Implementation notes: a concurrent map of entries; an entry is added by the thread that ends the session and
 * removed by whichever thread sees the holder's answer (or by the maintenance thread once it expired); its future is
 * completed by the thread that sees the first acknowledgement, never under a lock.
 */
final class PendingInvalidations {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final NodeId local;
  private final Ticker ticker;
  /** How long an invalidation waits for its holder: the tombstone lifetime, after which nothing here remembers it. */
  private final long lifetimeNanos;
  private final ConcurrentHashMap<String, Entry> byId = new ConcurrentHashMap<>();

  /**
   * One invalidation: where the copy is ({@code holder}, the buddy when the session ended; null when it had none, and
   * then any answer settles it), since when, and the future the request waits on.
   */
  private record Entry(Message.Invalidate invalidate, NodeId holder, long sinceNanos,
      CompletableFuture<FlushOutcome> acknowledged) {
    boolean settledBy(NodeId from) {
      return holder == null || holder.equals(from);
    }
  }

  /** An invalidation to send again: to whom, and what. */
  record Resend(NodeId to, Message.Invalidate invalidate) {}

  PendingInvalidations(NodeId local, Ticker ticker, Duration lifetime) {
    this.local = local;
    this.ticker = ticker;
    this.lifetimeNanos = lifetime.toNanos();
  }

  /**
   * Remembers an invalidation until {@code holder} acknowledged it; the future completes with REPLICATED at the first
   * acknowledgement (the holder's or the buddy's), FENCED when a member holds the session at a later epoch.
   */
  CompletableFuture<FlushOutcome> remember(Message.Invalidate invalidate, NodeId holder) {
    Entry entry = new Entry(invalidate, holder, ticker.read(), new CompletableFuture<>());
    byId.put(invalidate.sessionId(), entry);
    return entry.acknowledged();
  }

  boolean isPending(String sessionId) {
    return byId.containsKey(sessionId);
  }

  /**
   * {@code from} answered {@code invalidate}: the request's future completes if the answer settles it (anything but
   * a refusal), and the entry is forgotten if {@code from} holds the copy. A member that holds the session at a later
   * epoch ({@code STALE_EPOCH}) settles it as {@code FENCED}: another node took the session over while this one ended
   * it (this node was paused or cut off), and serves it on; answering the logout 200 would let the id be served after
   * it (the simulation found this, seed 1975).
   */
  void answered(Message.Invalidate invalidate, NodeId from, Message reply) {
    boolean settled = reply instanceof Message.Ack
        || reply instanceof Message.Nack nack && nack.reason() != Message.Nack.Reason.REFUSED;
    Entry entry = byId.get(invalidate.sessionId());
    if (!settled || entry == null || !entry.invalidate().equals(invalidate)) {
      return;
    }
    boolean fenced = reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.STALE_EPOCH;
    boolean answeredFirst = entry.acknowledged().complete(fenced ? FlushOutcome.FENCED : FlushOutcome.REPLICATED);
    if (fenced) {
      // The session lives on at a later epoch elsewhere: the holder's copy is below it, and this node must not keep
      // answering "nowhere" for a session served elsewhere.
      byId.remove(invalidate.sessionId(), entry);
    } else if (entry.settledBy(from)) {
      if (byId.remove(invalidate.sessionId(), entry) && !answeredFirst) {
        LOG.log(Level.INFO, "Node {0}: {1}, which held the copy of session [{2}], acknowledged its end (epoch {3}) {4} ms"
            + " after it ended", local.value(), from.value(), invalidate.sessionId(), invalidate.epoch(),
            (ticker.read() - entry.sinceNanos()) / 1_000_000);
      }
    } else if (answeredFirst) {
      LOG.log(Level.DEBUG, "Node {0}: the end of session [{1}] (epoch {2}) is acknowledged by its buddy {3}; {4}, which"
          + " held its copy, is told again until it answers", local.value(), invalidate.sessionId(), invalidate.epoch(),
          from.value(), entry.holder().value());
    }
  }

  /**
   * What the maintenance tick sends again: each invalidation to its holder while {@code view} lists it, and to
   * {@code buddy} too while nobody acknowledged it yet. Entries older than the tombstone lifetime are forgotten.
   */
  List<Resend> due(MembershipView view, NodeId buddy) {
    long now = ticker.read();
    List<Resend> due = new ArrayList<>();
    for (Entry entry : byId.values()) {
      if (now - entry.sinceNanos() > lifetimeNanos) {
        if (byId.remove(entry.invalidate().sessionId(), entry)) {
          entry.acknowledged().complete(FlushOutcome.UNCONFIRMED);
          if (entry.holder() != null && view != null && view.contains(entry.holder())) {
            // A holder the view dropped died, or comes back under another run: nothing to tell. One still listed
            // refused for as long as this node remembers the end.
            LOG.log(Level.WARNING, "Node {0}: {1}, which held the copy of session [{2}], did not acknowledge its end"
                + " within the tombstone lifetime; forgotten", local.value(), entry.holder().value(),
                entry.invalidate().sessionId());
          }
        }
        continue;
      }
      NodeId holder = entry.holder();
      boolean holderListed = holder != null && view != null && view.contains(holder) && !holder.equals(local);
      if (holderListed) {
        due.add(new Resend(holder, entry.invalidate()));
      }
      if (buddy != null && !buddy.equals(holder) && !entry.acknowledged().isDone()) {
        due.add(new Resend(buddy, entry.invalidate()));
      }
    }
    return due;
  }
}
