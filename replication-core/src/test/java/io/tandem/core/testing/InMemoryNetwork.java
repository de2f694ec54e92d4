package io.tandem.core.testing;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.TransportException;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A simulated network of {@link InMemoryTransport}s, so that engine tests run a whole cluster in one JVM and can
 * inject the failures a real network has: crashed and hung nodes, partitions and lost messages.
 *
 * <p>Implementation notes (who owns what):
 *
 * <ul>
 *   <li>{@link #lock} guards every piece of mutable fault and routing state: {@link #nodes}, {@link #crashed},
 *       {@link #hung}, {@link #partitions}, {@link #drops} and each {@link Channel}'s queue. It is never held
 *       while calling a handler, the wire hook or completing a future, so user code can call back into the
 *       network.
 *   <li>Each direction of each link has two {@link Channel}s: one for requests ({@code from -> to}) and one for
 *       replies. A channel owns one daemon thread ({@code tandem-inmem-<from>-<to>}, replies {@code ...-reply}),
 *       which is the only thread calling the receiver's handler for that sender; hence per-peer order and no
 *       concurrent handling per sender. The channel queue is drained one item at a time from the head, and a
 *       hung node's channels simply stop draining, so held messages keep their order across {@link #resume}.
 *   <li>{@link #pending} holds every outstanding exchange; an exchange leaves it when its future completes,
 *       whoever completes it (reply, timeout on {@link #timer}, crash, partition or close).
 *   <li>{@link #delivered} counters and {@link #wireHook} are thread-safe on their own.
 * </ul>
 */
public final class InMemoryNetwork implements AutoCloseable {
  /** Outstanding requests per peer an {@link InMemoryTransport} allows unless told otherwise. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;

  private final Object lock = new Object();
  private final Map<NodeId, InMemoryTransport> nodes = new HashMap<>();
  private final Set<InMemoryTransport> crashed = ConcurrentHashMap.newKeySet();
  /** Nodes {@link #kill killed}: a dial to them is refused (a crashed node's hangs, or goes nowhere). */
  private final Set<NodeId> killed = ConcurrentHashMap.newKeySet();
  private final Set<NodeId> hung = ConcurrentHashMap.newKeySet();
  private final List<Partition> partitions = new ArrayList<>();
  private final Map<Link, Integer> drops = new HashMap<>();
  private final Map<ChannelKey, Channel> channels = new HashMap<>();
  private final Map<Link, AtomicLong> delivered = new ConcurrentHashMap<>();
  private final Set<Exchange> pending = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor timer;
  private volatile UnaryOperator<Message> wireHook = UnaryOperator.identity();
  private volatile boolean honourRequestTimeouts;
  private volatile CompletableFuture<Void> refusalChecksHeld = CompletableFuture.completedFuture(null);
  private boolean closed;

  public InMemoryNetwork() {
    timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "tandem-inmem-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
  }

  /** Creates and registers a transport with the default bound of outstanding requests per peer. */
  public InMemoryTransport transport(NodeId id, Duration requestTimeout) {
    return transport(id, requestTimeout, DEFAULT_MAX_IN_FLIGHT);
  }

  /**
   * Creates and registers a transport. A node id may be reused once its previous transport was closed or
   * crashed: that is how tests restart a node.
   */
  public InMemoryTransport transport(NodeId id, Duration requestTimeout, int maxInFlight) {
    Objects.requireNonNull(id, "id");
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be >= 1: " + maxInFlight);
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("network closed");
      }
      InMemoryTransport existing = nodes.get(id);
      if (existing != null && isAlive(existing)) {
        throw new IllegalStateException("node " + id + " already has a live transport");
      }
      InMemoryTransport transport = new InMemoryTransport(this, id, requestTimeout, maxInFlight);
      nodes.put(id, transport);
      killed.remove(id); // started again at its address: a redial reaches it
      return transport;
    }
  }

  /**
   * Applies {@code hook} to every request and reply in flight, on the channel thread. Engine tests set it to a
   * round trip through the wire codec so that only what the wire can carry arrives. If it throws, the request
   * fails with a {@link TransportException}.
   */
  public void setWireHook(UnaryOperator<Message> hook) {
    wireHook = Objects.requireNonNull(hook, "hook");
  }

  /**
   * The node dies: it stops receiving and sending, requests pending to or from it fail with {@link
   * PeerUnreachableException}, and new requests to it fail fast the same way.
   */
  public void crash(NodeId id) {
    InMemoryTransport victim;
    synchronized (lock) {
      victim = requireNode(id);
      crashed.add(victim);
    }
    abortWhere(
        e -> e.sender == victim || e.receiver == victim,
        e -> new PeerUnreachableException(e.to, "node " + id + " crashed"));
  }

  /**
   * The node is killed on a host that stays up: as {@link #crash}, and every other node's transport is told that its
   * connection closed and a redial was refused (what a TCP transport sees of a SIGKILL, long before a view drops it).
   */
  public void kill(NodeId id) {
    killed.add(id);
    crash(id);
    List<InMemoryTransport> others;
    synchronized (lock) {
      others = nodes.values().stream().filter(t -> !t.localNode().equals(id) && !crashed.contains(t)).toList();
    }
    others.forEach(t -> t.peerRefused(id));
  }

  /**
   * The node, crashed or cut off before, has died since: a redial to its address is refused from now on, but no
   * connection of it closed to tell anyone (they were gone already).
   */
  public void diedUnseen(NodeId id) {
    killed.add(id);
  }

  /** Whether {@code id} was {@link #kill killed}. */
  boolean killed(NodeId id) {
    return killed.contains(id);
  }

  /**
   * From now on a redial check answers only once {@code release} completes, as a check of a silent host's address
   * answers only at the connect timeout: the blocking check blocks its caller until then, the other completes then.
   */
  public void holdRefusalChecksUntil(CompletableFuture<Void> release) {
    refusalChecksHeld = release;
  }

  /** The hold of {@link #holdRefusalChecksUntil}, completed when there is none. */
  CompletableFuture<Void> refusalChecksHeld() {
    return refusalChecksHeld;
  }

  /**
   * The node stops answering without closing anything, as in a long GC pause: requests to it are held (and time
   * out) and its replies are withheld, until {@link #resume}.
   */
  public void hang(NodeId id) {
    synchronized (lock) {
      requireNode(id);
      hung.add(id);
    }
  }

  /** Undoes {@link #hang}: held requests are delivered in order, then withheld replies are sent. */
  public void resume(NodeId id) {
    List<Channel> gated = new ArrayList<>();
    synchronized (lock) {
      hung.remove(id);
      for (Channel channel : channels.values()) {
        if (channel.key.gate().equals(id)) {
          gated.add(channel);
        }
      }
    }
    gated.forEach(this::schedulePump);
  }

  /**
   * Nodes in {@code a} cannot reach nodes in {@code b} and vice versa: requests across fail with {@link
   * PeerUnreachableException}, including those pending now. Partitions add up until {@link #heal}.
   */
  public void partition(Set<NodeId> a, Set<NodeId> b) {
    Partition partition = new Partition(Set.copyOf(a), Set.copyOf(b));
    synchronized (lock) {
      partitions.add(partition);
    }
    abortWhere(
        e -> partition.separates(e.from, e.to),
        e -> new PeerUnreachableException(e.to, "partitioned from " + e.from));
  }

  /** Removes every partition. */
  public void heal() {
    synchronized (lock) {
      partitions.clear();
    }
  }

  /** Silently loses the next {@code n} requests sent from {@code from} to {@code to}: they time out. */
  public void dropNext(NodeId from, NodeId to, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0: " + n);
    }
    synchronized (lock) {
      drops.merge(new Link(from, to), n, Integer::sum);
    }
  }

  /** How many requests from {@code from} reached {@code to}'s handler. */
  public long delivered(NodeId from, NodeId to) {
    var counter = delivered.get(new Link(from, to));
    return counter == null ? 0 : counter.get();
  }

  /** Fails every pending request with {@link PeerUnreachableException} and stops all network threads. */
  @Override
  public void close() {
    List<InMemoryTransport> all;
    List<Channel> allChannels;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      all = new ArrayList<>(nodes.values());
      allChannels = new ArrayList<>(channels.values());
    }
    all.forEach(InMemoryTransport::close);
    abortWhere(e -> true, e -> new PeerUnreachableException(e.to, "network closed"));
    allChannels.forEach(c -> c.executor.shutdownNow());
    timer.shutdownNow();
  }

  // ---- called by InMemoryTransport ----

  /**
   * From now on a request sent with a timeout of its own waits that long for its reply, as over the real transport;
   * before, every request times out after its transport's timeout.
   */
  public void honourRequestTimeouts() {
    honourRequestTimeouts = true;
  }

  boolean honoursRequestTimeouts() {
    return honourRequestTimeouts;
  }

  /** Sends a request; {@code result} is completed by a reply, a fault, or the timeout. */
  void send(InMemoryTransport sender, NodeId to, Message request, CompletableFuture<Message> result, Duration timeoutAfter) {
    Exchange exchange;
    Channel channel;
    synchronized (lock) {
      PeerUnreachableException refusal = refusal(sender, to);
      if (refusal != null) {
        result.completeExceptionally(refusal);
        return;
      }
      InMemoryTransport receiver = nodes.get(to);
      exchange = new Exchange(sender, receiver, request, result);
      pending.add(exchange);
      Link link = new Link(sender.localNode(), to);
      Integer drop = drops.get(link);
      if (drop != null && drop > 0) {
        drops.put(link, drop - 1);
        channel = null;
      } else {
        channel = channel(new ChannelKey(sender.localNode(), to, false));
        channel.queue.add(() -> deliverRequest(exchange));
      }
    }
    ScheduledFuture<?> timeout;
    try {
      timeout = timer.schedule(
            () ->
                result.completeExceptionally(
                    new TimeoutException(
                        "no reply from " + to + " within " + timeoutAfter.toMillis() + " ms")),
            timeoutAfter.toNanos(),
            TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new PeerUnreachableException(to, "network closed"));
      return;
    }
    result.whenComplete(
        (reply, failure) -> {
          timeout.cancel(false);
          pending.remove(exchange);
        });
    if (channel != null) {
      schedulePump(channel);
    }
  }

  /** The transport closed: it is unreachable, and its pending requests (both ways) fail. */
  void closed(InMemoryTransport transport) {
    synchronized (lock) {
      nodes.remove(transport.localNode(), transport);
    }
    abortWhere(
        e -> e.sender == transport || e.receiver == transport,
        e -> new PeerUnreachableException(e.to, "node " + transport.localNode() + " closed"));
  }

  // ---- delivery, on channel threads ----

  private void deliverRequest(Exchange exchange) {
    RequestHandler handler;
    synchronized (lock) {
      if (exchange.aborted
          || !isAlive(exchange.sender)
          || !isAlive(exchange.receiver)
          || separated(exchange.from, exchange.to)) {
        return;
      }
      handler = exchange.receiver.handler();
    }
    delivered.computeIfAbsent(new Link(exchange.from, exchange.to), k -> new AtomicLong()).incrementAndGet();
    exchange.receiver.heard(exchange.from);
    Message request;
    try {
      request = wireHook.apply(exchange.request);
    } catch (RuntimeException e) {
      exchange.result.completeExceptionally(
          new TransportException(exchange.to, "the wire cannot carry the request: " + e, e));
      return;
    }
    CompletionStage<Message> stage;
    try {
      stage = handler.handle(exchange.from, request);
      if (stage == null) {
        stage = CompletableFuture.failedFuture(new NullPointerException("handler returned no stage"));
      }
    } catch (RuntimeException | Error e) {
      stage = CompletableFuture.failedFuture(e);
    }
    stage.whenComplete((reply, failure) -> enqueueReply(exchange, reply, failure));
  }

  private void enqueueReply(Exchange exchange, Message reply, Throwable failure) {
    Channel channel;
    synchronized (lock) {
      if (closed) {
        return;
      }
      channel = channel(new ChannelKey(exchange.to, exchange.from, true));
      channel.queue.add(() -> deliverReply(exchange, reply, failure));
    }
    schedulePump(channel);
  }

  private void deliverReply(Exchange exchange, Message reply, Throwable failure) {
    synchronized (lock) {
      if (exchange.aborted || !isAlive(exchange.sender) || !isAlive(exchange.receiver)) {
        return;
      }
      if (separated(exchange.from, exchange.to)) {
        exchange.result.completeExceptionally(
            new PeerUnreachableException(exchange.to, "partitioned from " + exchange.from));
        return;
      }
    }
    exchange.sender.heard(exchange.to);
    if (failure != null) {
      exchange.result.completeExceptionally(new RemoteHandlerException(exchange.to, detail(failure)));
      return;
    }
    if (reply == null) {
      exchange.result.completeExceptionally(new RemoteHandlerException(exchange.to, "handler replied null"));
      return;
    }
    try {
      exchange.result.complete(wireHook.apply(reply));
    } catch (RuntimeException e) {
      exchange.result.completeExceptionally(
          new TransportException(exchange.to, "the wire cannot carry the reply: " + e, e));
    }
  }

  private static String detail(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getName();
  }

  private void schedulePump(Channel channel) {
    try {
      channel.executor.execute(() -> pump(channel));
    } catch (RejectedExecutionException e) {
      // The network is closed; whatever was queued is failed by close().
    }
  }

  /** Runs queued deliveries from the head until the queue is empty or its gate node hangs. */
  private void pump(Channel channel) {
    while (true) {
      Runnable next;
      synchronized (lock) {
        if (hung.contains(channel.key.gate()) || channel.queue.isEmpty()) {
          return;
        }
        next = channel.queue.poll();
      }
      next.run();
    }
  }

  // ---- state helpers, called with lock held unless stated ----

  private PeerUnreachableException refusal(InMemoryTransport sender, NodeId to) {
    if (closed) {
      return new PeerUnreachableException(to, "network closed");
    }
    if (!isAlive(sender)) {
      return new PeerUnreachableException(to, "local node " + sender.localNode() + " is down");
    }
    InMemoryTransport receiver = nodes.get(to);
    if (receiver == null) {
      return new PeerUnreachableException(to, "no such node in the network");
    }
    if (!isAlive(receiver)) {
      return new PeerUnreachableException(to, "node is down");
    }
    if (receiver.handler() == null) {
      return new PeerUnreachableException(to, "node has not started");
    }
    if (separated(sender.localNode(), to)) {
      return new PeerUnreachableException(to, "partitioned from " + sender.localNode());
    }
    return null;
  }

  /**
   * Whether {@code peer} can still reach {@code listener} now, as an open connection that carries its frames would:
   * it runs (not crashed, closed or hung) and no partition separates them. A real transport sees a killed peer's
   * connection close; a hung or cut-off one simply goes silent, which {@link InMemoryTransport#heardFromWithin} must
   * see at once since tests change views without waiting.
   */
  boolean canHear(NodeId listener, NodeId peer) {
    synchronized (lock) {
      InMemoryTransport transport = nodes.get(peer);
      return transport != null && isAlive(transport) && !hung.contains(peer) && !separated(listener, peer);
    }
  }

  private boolean isAlive(InMemoryTransport transport) {
    return !transport.isClosed() && !crashed.contains(transport);
  }

  private boolean separated(NodeId x, NodeId y) {
    for (Partition partition : partitions) {
      if (partition.separates(x, y)) {
        return true;
      }
    }
    return false;
  }

  private InMemoryTransport requireNode(NodeId id) {
    InMemoryTransport transport = nodes.get(id);
    if (transport == null) {
      throw new IllegalArgumentException("no node " + id + " in the network");
    }
    return transport;
  }

  private Channel channel(ChannelKey key) {
    return channels.computeIfAbsent(key, Channel::new);
  }

  /** Fails matching pending exchanges. Call without the lock: completing runs callers' callbacks. */
  private void abortWhere(
      Predicate<Exchange> match,
      Function<Exchange, ? extends Exception> failure) {
    for (Exchange exchange : List.copyOf(pending)) {
      if (match.test(exchange)) {
        exchange.aborted = true;
        exchange.result.completeExceptionally(failure.apply(exchange));
      }
    }
  }

  private record Link(NodeId from, NodeId to) {}

  private record Partition(Set<NodeId> a, Set<NodeId> b) {
    boolean separates(NodeId x, NodeId y) {
      return (a.contains(x) && b.contains(y)) || (a.contains(y) && b.contains(x));
    }
  }

  /**
   * One direction of one link, for requests or for replies. The gate is the node whose hang stops it: the
   * receiver of requests, the sender of replies.
   */
  private record ChannelKey(NodeId from, NodeId to, boolean replies) {
    NodeId gate() {
      return replies ? from : to;
    }

    String threadName() {
      return "tandem-inmem-" + from + "-" + to + (replies ? "-reply" : "");
    }
  }

  private static final class Channel {
    final ChannelKey key;
    final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    final ExecutorService executor;

    Channel(ChannelKey key) {
      this.key = key;
      this.executor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, key.threadName());
                t.setDaemon(true);
                return t;
              });
    }
  }

  private static final class Exchange {
    final InMemoryTransport sender;
    final InMemoryTransport receiver;
    final NodeId from;
    final NodeId to;
    final Message request;
    final CompletableFuture<Message> result;
    /** Set when a fault failed the exchange: the request and reply are then lost, not delivered late. */
    volatile boolean aborted;

    Exchange(
        InMemoryTransport sender,
        InMemoryTransport receiver,
        Message request,
        CompletableFuture<Message> result) {
      this.sender = sender;
      this.receiver = receiver;
      this.from = sender.localNode();
      this.to = receiver.localNode();
      this.request = request;
      this.result = result;
    }
  }
}
