package io.tandem.core.testing;

import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link Transport} on an {@link InMemoryNetwork}, honouring the same contract as a socket transport. */
public final class InMemoryTransport implements Transport {
  private final InMemoryNetwork network;
  private final NodeId id;
  private final Duration requestTimeout;
  private final int maxInFlight;
  private final Map<NodeId, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Set<CompletableFuture<Message>> pending = ConcurrentHashMap.newKeySet();
  private volatile RequestHandler handler;
  private volatile boolean closed;
  private volatile MembershipView view;

  InMemoryTransport(InMemoryNetwork network, NodeId id, Duration requestTimeout, int maxInFlight) {
    this.network = network;
    this.id = id;
    this.requestTimeout = requestTimeout;
    this.maxInFlight = maxInFlight;
  }

  @Override
  public NodeId localNode() {
    return id;
  }

  @Override
  public String localAddress() {
    return "inmem:" + id.value();
  }

  @Override
  public void start(RequestHandler handler) {
    this.handler = handler;
  }

  RequestHandler handler() {
    return closed ? null : handler;
  }

  boolean isClosed() {
    return closed;
  }

  /** The last view the engine passed in. */
  public MembershipView view() {
    return view;
  }

  @Override
  public void updatePeers(MembershipView view) {
    this.view = view;
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    if (closed || handler == null) {
      return CompletableFuture.failedFuture(new PeerUnreachableException(peer, id + " is not started or closed"));
    }
    AtomicInteger count = inFlight.computeIfAbsent(peer, p -> new AtomicInteger());
    if (count.incrementAndGet() > maxInFlight) {
      count.decrementAndGet();
      return CompletableFuture.failedFuture(new BackPressureException(peer, maxInFlight, maxInFlight));
    }
    CompletableFuture<Message> reply = network.send(id, peer, message, requestTimeout);
    pending.add(reply);
    reply.whenComplete((r, e) -> {
      count.decrementAndGet();
      pending.remove(reply);
    });
    return reply;
  }

  void failPending(String reason) {
    for (CompletableFuture<Message> reply : pending) {
      reply.completeExceptionally(new PeerUnreachableException(id, reason));
    }
  }

  @Override
  public void close() {
    closed = true;
    failPending(id + " closed");
    network.closed(id, this);
  }
}
