package io.tandem.benchmarks.replication;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real transport, noting which threads ran its request handler ({@link FlushAllocation} counts them as the
 * buddy's). Allocates nothing per request once a thread is known.
 *
 * <p>Implementation notes: {@code HANDLER_THREADS} is a concurrent map written by the handler's threads and read by
 * the report; one JVM holds one buddy.
 */
final class BuddyThreads implements Transport {
  static final ConcurrentHashMap<Long, Boolean> HANDLER_THREADS = new ConcurrentHashMap<>();

  private final Transport delegate;

  BuddyThreads(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public NodeId localNode() {
    return delegate.localNode();
  }

  @Override
  public String localAddress() {
    return delegate.localAddress();
  }

  @Override
  public void start(RequestHandler handler) throws Exception {
    delegate.start((from, request) -> {
      long thread = Thread.currentThread().getId();
      if (!HANDLER_THREADS.containsKey(thread)) {
        HANDLER_THREADS.put(thread, Boolean.TRUE);
      }
      return handler.handle(from, request);
    });
  }

  @Override
  public void updatePeers(MembershipView view) {
    delegate.updatePeers(view);
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return delegate.request(peer, message);
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return delegate.request(peer, message, timeout);
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return delegate.requestBatched(peer, message);
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message, Duration timeout) {
    return delegate.requestBatched(peer, message, timeout);
  }

  @Override
  public void watchPeers(PeerWatcher watcher) {
    delegate.watchPeers(watcher);
  }

  @Override
  public boolean refusesConnections(Member member) {
    return delegate.refusesConnections(member);
  }

  @Override
  public boolean heardFromWithin(NodeId peer, Duration within) {
    return delegate.heardFromWithin(peer, within);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
