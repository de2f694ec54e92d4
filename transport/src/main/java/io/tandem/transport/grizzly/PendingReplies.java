package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.TransportException;
import io.tandem.core.wire.Message;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The requests one connection sent and has not had answered, each with its deadline. Replies complete them one at a
 * time or as a {@link Message.AckRange range}; the transport's sweep fails those past their deadline; a close fails
 * all of them at once. One deadline per request, kept here: no timer task per request.
 *
 * <p>Implementation notes: {@code byId} is a concurrent map. Request threads add; the connection's read thread
 * (replies), the sweep thread (deadlines) and whichever thread closes the connection remove. Whoever removes an
 * entry completes its future, so each future is completed exactly once, and never under a lock (there is none).
 * {@code count} follows the map: incremented by each add, decremented by whoever removes an entry, so that {@link
 * #register} can tell a request atomically whether another was awaited before it.
 */
final class PendingReplies {
  private record Pending(Message request, CompletableFuture<Message> reply, long deadline, long timeoutMillis) {}

  /** What a range acknowledged: requests completed, and ids it named that were not pending. */
  record RangeOutcome(int acknowledged, int notPending) {}

  private final Map<Long, Pending> byId = new ConcurrentHashMap<>();
  private final AtomicInteger count = new AtomicInteger();

  /**
   * @param timeoutMillis the wait the deadline stands for, named when it passes
   * @return how many requests were awaiting their reply before this one (of two registering at once, one sees 0
   *     only if none was)
   */
  int register(long id, Message request, CompletableFuture<Message> reply, long deadline, long timeoutMillis) {
    int before = count.getAndIncrement(); // before the add, so that no removal can count it off first
    byId.put(id, new Pending(request, reply, deadline, timeoutMillis));
    return before;
  }

  /** Removes {@code id}'s entry if present (and counts it off); the removed entry or null. */
  private Pending remove(long id) {
    Pending pending = byId.remove(id);
    if (pending != null) {
      count.decrementAndGet();
    }
    return pending;
  }

  private boolean remove(long id, Pending pending) {
    if (byId.remove(id, pending)) {
      count.decrementAndGet();
      return true;
    }
    return false;
  }

  /** Removes the entry if it is still this reply's; true if it was (the caller then completes the reply). */
  boolean forget(long id, CompletableFuture<Message> reply) {
    Pending pending = byId.get(id);
    return pending != null && pending.reply() == reply && remove(id, pending);
  }

  /**
   * Completes request {@code id} with {@code reply}; false if it was not pending (timed out, or never sent). A
   * {@code HANDLER_FAILED} nack becomes a {@link RemoteHandlerException}.
   */
  boolean answer(NodeId peer, long id, Message reply) {
    Pending pending = remove(id);
    if (pending == null) {
      return false;
    }
    if (reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.HANDLER_FAILED) {
      pending.reply().completeExceptionally(new RemoteHandlerException(peer, nack.detail()));
    } else {
      pending.reply().complete(reply);
    }
    return true;
  }

  /** Fails request {@code id}; false if it was not pending. */
  boolean fail(long id, Throwable failure) {
    Pending pending = remove(id);
    if (pending == null) {
      return false;
    }
    pending.reply().completeExceptionally(failure);
    return true;
  }

  /**
   * Completes every pending request with id in {@code (lastId - count, lastId]} with the ack it implies. An id not
   * pending timed out already (counted as {@code notPending}, nothing else happens). A request whose reply cannot
   * be implied (a locate, say) fails: the peer broke the protocol for that request only.
   *
   * <p>The work is bounded by the number of pending requests, whatever {@code count} says.
   */
  RangeOutcome acknowledgeRange(NodeId peer, long lastId, int count) {
    long firstId = lastId - count + 1;
    int acknowledged = 0;
    if (count <= byId.size()) {
      for (long id = firstId; id <= lastId; id++) {
        acknowledged += acknowledgeOne(peer, id, remove(id));
      }
    } else {
      for (Long id : byId.keySet()) {
        if (id >= firstId && id <= lastId) {
          acknowledged += acknowledgeOne(peer, id, remove(id));
        }
      }
    }
    return new RangeOutcome(acknowledged, count - acknowledged);
  }

  private static int acknowledgeOne(NodeId peer, long id, Pending pending) {
    if (pending == null) {
      return 0;
    }
    Message.Ack implied = Message.AckRange.impliedBy(pending.request());
    if (implied == null) {
      pending.reply().completeExceptionally(new TransportException(peer,
          "peer acknowledged request " + id + " (a " + pending.request().type() + ") with a range; it needs a reply", null));
    } else {
      pending.reply().complete(implied);
    }
    return 1;
  }

  /** Fails every request whose deadline is at or before {@code now}; returns how many. */
  int expire(long now, String peerName) {
    int expired = 0;
    for (Map.Entry<Long, Pending> e : byId.entrySet()) {
      Pending pending = e.getValue();
      if (now - pending.deadline() >= 0 && remove(e.getKey(), pending)) {
        pending.reply().completeExceptionally(
            new TimeoutException("no reply from " + peerName + " within " + pending.timeoutMillis() + "ms"));
        expired++;
      }
    }
    return expired;
  }

  /** Fails every pending request; used when the connection is gone. */
  void failAll(Supplier<? extends Throwable> failure) {
    for (Map.Entry<Long, Pending> e : byId.entrySet()) {
      if (remove(e.getKey(), e.getValue())) {
        e.getValue().reply().completeExceptionally(failure.get());
      }
    }
  }

  boolean isEmpty() {
    return byId.isEmpty();
  }

  int size() {
    return byId.size();
  }
}
