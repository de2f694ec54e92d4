package io.tandem.core.node;

import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.wire.Message;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The shared transport's one request handler and peer watcher: a request of a context goes to that context's engine,
 * unwrapped; a member's list of contexts goes to the directory. Nothing is dropped: a request of a context that does
 * not run here is answered {@link Message.Nack.Reason#CONTEXT_NOT_DEPLOYED} (a typed refusal the sender's {@link
 * ContextTransport} turns into an error, never an acknowledgement), and a request naming no context is answered {@link
 * Message.Nack.Reason#UNSUPPORTED}; both are counted, the second logged (rate-limited), since only a misbehaving peer
 * sends one. Peer events go to every running context's engine.
 *
 * <p>Implementation notes: the handler and watcher maps are concurrent; a context's entries are added when its engine
 * starts and removed when it closes. Called on transport threads; the transport's order per sending peer is kept,
 * since each request is passed on at once.
 */
final class ContextDispatcher implements RequestHandler, PeerWatcher {
  private final NodeId local;
  private final ContextDirectory directory;
  private final ConcurrentHashMap<String, RequestHandler> handlers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, PeerWatcher> watchers = new ConcurrentHashMap<>();
  private final LongAdder notDeployed = new LongAdder();
  private final LongAdder withoutContext = new LongAdder();
  private final RateLimitedLog log = new RateLimitedLog(System.getLogger(ContextDispatcher.class.getName()));

  ContextDispatcher(NodeId local, ContextDirectory directory) {
    this.local = local;
    this.directory = directory;
  }

  void register(String context, RequestHandler handler) {
    if (handlers.putIfAbsent(context, handler) != null) {
      throw new IllegalStateException("context [" + context + "] is already running on node " + local.value()
          + " in this cluster: two applications of one node must not share a name");
    }
  }

  void watch(String context, PeerWatcher watcher) {
    watchers.put(context, watcher);
  }

  void unregister(String context) {
    handlers.remove(context);
    watchers.remove(context);
  }

  /** Requests of a context that does not run here, refused. */
  long refusedNotDeployed() {
    return notDeployed.sum();
  }

  /** Requests that named no context, refused. */
  long refusedWithoutContext() {
    return withoutContext.sum();
  }

  @Override
  public CompletionStage<Message> handle(NodeId from, Message request) {
    if (request instanceof Message.InContext scoped) {
      RequestHandler handler = handlers.get(scoped.context());
      if (handler == null) {
        notDeployed.increment();
        return CompletableFuture.completedFuture(new Message.Nack(Message.Nack.Reason.CONTEXT_NOT_DEPLOYED, 0, 0,
            "node " + local.value() + " runs no context [" + scoped.context() + "]"));
      }
      return handler.handle(from, scoped.message());
    }
    if (request instanceof Message.Contexts contexts) {
      return directory.received(from, contexts);
    }
    withoutContext.increment();
    log.warn("unscoped:" + from, "Node " + local.value() + " refused a " + request.type() + " from " + from.value()
        + " that names no context: since protocol version 5 every request of an application names it");
    return CompletableFuture.completedFuture(new Message.Nack(Message.Nack.Reason.UNSUPPORTED, 0, 0,
        request.type() + " names no context"));
  }

  @Override
  public void peerRefused(NodeId peer, String detail) {
    watchers.values().forEach(w -> w.peerRefused(peer, detail));
  }

  @Override
  public void peerConnected(NodeId peer) {
    watchers.values().forEach(w -> w.peerConnected(peer));
  }
}
