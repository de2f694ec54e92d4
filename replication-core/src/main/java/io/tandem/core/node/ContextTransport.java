package io.tandem.core.node;

import io.tandem.core.spi.ContextNotDeployedException;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One context's view of the node's shared transport: what the context's engine sends travels in a {@link
 * Message.InContext} naming the context, and the requests the node receives for the context reach the engine's
 * handler (see {@link ContextDispatcher}). The engine needs no change: to it this is its transport.
 *
 * <p>A peer that runs no such context answers {@link Message.Nack.Reason#CONTEXT_NOT_DEPLOYED}: the request's future
 * fails with {@link ContextNotDeployedException} (never an answer the engine could take for an acknowledgement or a
 * "not held here"), and the directory drops the peer from the context's view until it says it runs it.
 *
 * <p>Starting registers the engine's handler and closing removes it: the shared transport stays up for the other
 * contexts. {@link #updatePeers} does nothing, since the node runtime keeps the shared transport on the shared view
 * (a context's view is a subset of it, and would otherwise disconnect members the other contexts use).
 *
 * <p>Implementation notes: immutable but for the volatile {@link #closed}; every call goes to the thread-safe shared
 * transport, dispatcher or directory.
 */
public final class ContextTransport implements Transport {
  private final String context;
  private final Transport shared;
  private final ContextDispatcher dispatcher;
  private final ContextDirectory directory;
  private final Duration requestTimeout;
  /** Set by {@link #close}: the context's engine is gone, and what it still sends fails as to an unreachable peer. */
  private volatile boolean closed;

  ContextTransport(String context, Transport shared, ContextDispatcher dispatcher, ContextDirectory directory,
      Duration requestTimeout) {
    this.context = context;
    this.shared = shared;
    this.dispatcher = dispatcher;
    this.directory = directory;
    this.requestTimeout = requestTimeout;
  }

  public String context() {
    return context;
  }

  @Override
  public NodeId localNode() {
    return shared.localNode();
  }

  @Override
  public String localAddress() {
    return shared.localAddress();
  }

  @Override
  public void start(RequestHandler handler) {
    dispatcher.register(context, handler);
  }

  @Override
  public void updatePeers(MembershipView view) {
    // The node runtime keeps the shared transport on the shared view; see the class comment.
  }

  /** With the context's own request timeout (its {@code ackTimeout}), whatever the shared transport's default. */
  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return request(peer, message, requestTimeout);
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return send(peer, message, timeout, false);
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return requestBatched(peer, message, requestTimeout);
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message, Duration timeout) {
    return send(peer, message, timeout, true);
  }

  private CompletableFuture<Message> send(NodeId peer, Message message, Duration timeout, boolean batched) {
    if (closed) {
      return CompletableFuture.failedFuture(new PeerUnreachableException(peer, "context [" + context + "] is closed on "
          + shared.localNode().value()));
    }
    Message.InContext scoped = new Message.InContext(context, message);
    return unwrap(peer, batched ? shared.requestBatched(peer, scoped, timeout) : shared.request(peer, scoped, timeout));
  }

  private CompletableFuture<Message> unwrap(NodeId peer, CompletableFuture<Message> reply) {
    return reply.thenApply(answer -> {
      if (answer instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.CONTEXT_NOT_DEPLOYED) {
        directory.refused(peer, context);
        throw new CompletionException(new ContextNotDeployedException(peer, context, nack.detail()));
      }
      return answer;
    });
  }

  @Override
  public void watchPeers(PeerWatcher watcher) {
    dispatcher.watch(context, watcher);
  }

  @Override
  public boolean refusesConnections(Member member) {
    return shared.refusesConnections(member);
  }

  @Override
  public CompletableFuture<Boolean> refusalOf(Member member) {
    return shared.refusalOf(member);
  }

  /**
   * False for a member that left this context but not the cluster: it still talks to this node for its other
   * applications, yet the context's view that dropped it is right (it undeployed or is reloading the application), and
   * the engine must not take the drop for a view that is wrong about a live member (it would hold its sessions back as
   * after a partition).
   */
  @Override
  public boolean heardFromWithin(NodeId peer, Duration within) {
    return !directory.leftTheContextOnly(peer, context) && shared.heardFromWithin(peer, within);
  }

  /** The context's engine stops: its handler and watcher go; the shared transport stays up for the others. */
  @Override
  public void close() {
    closed = true;
    dispatcher.unregister(context);
  }

  @Override
  public String toString() {
    return "ContextTransport[" + context + " over " + shared + "]";
  }
}
