package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Requests for one peer that arrived while it had no ready connection, in arrival order. Once the connection is
 * ready one thread drains it outside the lock; requests arriving meanwhile join the queue instead of overtaking it,
 * which keeps each caller's requests in order without holding a lock across the writes.
 *
 * <p>Implementation notes: confined to its {@link Peer}'s lock; nothing here is read or written without it.
 */
final class WaitingRequests {
  /** One request waiting for a connection, with the reply deadline it asked for. */
  record Waiting(Message message, CompletableFuture<Message> reply, Duration timeout) {}

  private final List<Waiting> items = new ArrayList<>();
  /** A thread is sending these on a ready connection; others only add. */
  boolean draining;

  void add(Waiting waiting) {
    items.add(waiting);
  }

  boolean remove(CompletableFuture<Message> reply) {
    return items.removeIf(w -> w.reply() == reply);
  }

  List<Waiting> takeAll() {
    List<Waiting> taken = List.copyOf(items);
    items.clear();
    return taken;
  }

  /** Outside any lock: a caller may hold a session lock that a future's callback also takes. */
  static void failAll(List<Waiting> failed, NodeId peer, String reason) {
    failed.forEach(w -> w.reply().completeExceptionally(new PeerUnreachableException(peer, reason)));
  }
}
