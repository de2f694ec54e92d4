package io.tandem.core.testing;

import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Transport} over an {@link InMemoryNetwork}, so the engine can be tested as a cluster in one JVM with
 * the same contract a TCP transport keeps (see {@code TransportContract}). Created by {@link
 * InMemoryNetwork#transport}.
 *
 * <p>Implementation notes (who owns what): {@link #handler}, {@link #closed} and {@link #view} are volatile and
 * written once (start, close) or wholesale (updatePeers) by the caller's thread; the network reads them from its
 * channel threads. {@link #inFlight} counts outstanding requests per peer; a request increments its peer's count
 * before it is sent and the future's completion decrements it, on whatever thread completes it. Routing, faults
 * and delivery belong to the network.
 */
public final class InMemoryTransport implements Transport {
  private final InMemoryNetwork network;
  private final NodeId id;
  private final Duration requestTimeout;
  private final int maxInFlight;
  private final ConcurrentMap<NodeId, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private volatile RequestHandler handler;
  private volatile boolean closed;
  private volatile MembershipView view;
  /** Told when a peer was killed ({@link InMemoryNetwork#kill}), as a TCP transport tells of a refused redial. */
  private volatile PeerWatcher watcher = PeerWatcher.NONE;
  /** When each peer's last request or reply reached this node (System.nanoTime); written by the network's threads. */
  private final ConcurrentMap<NodeId, Long> lastHeard = new ConcurrentHashMap<>();

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
    return "inmem:" + id;
  }

  @Override
  public synchronized void start(RequestHandler handler) {
    Objects.requireNonNull(handler, "handler");
    if (closed) {
      throw new IllegalStateException("transport " + id + " is closed");
    }
    if (this.handler != null) {
      throw new IllegalStateException("transport " + id + " already started");
    }
    this.handler = handler;
  }

  /** Only recorded: in-memory routing goes by node id, and nodes absent from the network are unreachable. */
  @Override
  public void updatePeers(MembershipView view) {
    this.view = Objects.requireNonNull(view, "view");
  }

  /** The last view given to {@link #updatePeers}, or null; lets tests check the engine keeps it current. */
  public MembershipView peersView() {
    return view;
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return request(peer, message, requestTimeout, true);
  }

  /**
   * As the real transport once the network {@linkplain InMemoryNetwork#honourRequestTimeouts honours} them: the reply
   * may take up to {@code timeout}; otherwise this transport's own timeout applies, which the engine tests rely on.
   */
  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return request(peer, message, timeout, network.honoursRequestTimeouts());
  }

  private CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout, boolean honoured) {
    Objects.requireNonNull(peer, "peer");
    Objects.requireNonNull(message, "message");
    if (closed) {
      return CompletableFuture.failedFuture(new PeerUnreachableException(peer, "transport " + id + " is closed"));
    }
    if (handler == null) {
      return CompletableFuture.failedFuture(
          new PeerUnreachableException(peer, "transport " + id + " has not started"));
    }
    AtomicInteger count = inFlight.computeIfAbsent(peer, p -> new AtomicInteger());
    int now = count.incrementAndGet();
    if (now > maxInFlight) {
      count.decrementAndGet();
      return CompletableFuture.failedFuture(new BackPressureException(peer, now - 1, maxInFlight));
    }
    CompletableFuture<Message> result = new CompletableFuture<>();
    result.whenComplete((reply, failure) -> count.decrementAndGet());
    network.send(this, peer, message, result, honoured ? timeout : requestTimeout);
    return result;
  }

  @Override
  public void watchPeers(PeerWatcher peerWatcher) {
    this.watcher = Objects.requireNonNull(peerWatcher, "peerWatcher");
  }

  /**
   * Refused when the member was {@linkplain InMemoryNetwork#kill killed}; crashed (hung, cut) says nothing. Blocks
   * while the network {@linkplain InMemoryNetwork#holdRefusalChecksUntil holds} redial checks.
   */
  @Override
  public boolean refusesConnections(Member member) {
    network.refusalChecksHeld().join();
    return network.killed(member.id());
  }

  /** As {@link #refusesConnections}, completing when the network lets redial checks answer. */
  @Override
  public CompletableFuture<Boolean> refusalOf(Member member) {
    return network.refusalChecksHeld().thenApply(released -> network.killed(member.id()));
  }

  /**
   * {@code peer} was killed: its connection to this node closed and its host refused a new one. Called by {@link
   * InMemoryNetwork#kill} on every node at once; a test calls it on one node at a time for a kill whose closed
   * connections reach the members one after another.
   */
  public void peerRefused(NodeId peer) {
    if (!closed) {
      watcher.peerRefused(peer, "connection closed, redial to inmem:" + peer + " refused");
    }
  }

  @Override
  public boolean heardFromWithin(NodeId peer, Duration within) {
    Long heard = lastHeard.get(peer);
    return heard != null && !closed && System.nanoTime() - heard <= within.toNanos() && network.canHear(id, peer);
  }

  /** The network delivered a request or a reply from {@code peer}. */
  void heard(NodeId peer) {
    lastHeard.put(peer, System.nanoTime());
  }

  /** Outstanding requests to {@code peer}. */
  public int inFlight(NodeId peer) {
    AtomicInteger count = inFlight.get(peer);
    return count == null ? 0 : count.get();
  }

  /** Fails this node's pending requests with {@link PeerUnreachableException}; others can no longer reach it. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    network.closed(this);
  }

  @Override
  public String toString() {
    return "InMemoryTransport[" + id + (closed ? ", closed" : "") + "]";
  }

  RequestHandler handler() {
    return handler;
  }

  boolean isClosed() {
    return closed;
  }
}
