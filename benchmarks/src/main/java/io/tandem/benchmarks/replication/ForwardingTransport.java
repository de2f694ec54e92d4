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

/**
 * A transport that hands every call to another one, for the benchmark's wrappers to override only what they observe
 * (as Guava's {@code Forwarding*} classes do). Every method is forwarded, the defaults too: a wrapper that let a
 * default answer in the real transport's place would change what the engine under measurement decides.
 */
abstract class ForwardingTransport implements Transport {
  protected final Transport delegate;

  ForwardingTransport(Transport delegate) {
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
    delegate.start(handler);
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
  public CompletableFuture<Boolean> refusalOf(Member member) {
    return delegate.refusalOf(member);
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
