package io.tandem.core.testing;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * A network of {@link InMemoryTransport}s with the faults the engine must survive: crashed nodes, hung nodes,
 * partitions and lost messages. Each (sender, receiver) link has its own single delivery thread, which gives the
 * transport contract's per-peer order and non-concurrent handling for free.
 *
 * <p>Implementation notes: all maps and sets are concurrent; a link's executor is the only thread that calls the
 * receiver's handler for that sender; {@code held} (requests to a hung node) is guarded by {@code this}. Timeouts
 * run on one shared timer thread in real time: tests wait with Awaitility, never with sleeps.
 */
public final class InMemoryNetwork implements AutoCloseable {
  private record Link(NodeId from, NodeId to) {}

  private final Map<NodeId, InMemoryTransport> nodes = new ConcurrentHashMap<>();
  private final Map<Link, ExecutorService> links = new ConcurrentHashMap<>();
  private final Map<Link, AtomicInteger> toDrop = new ConcurrentHashMap<>();
  private final Map<Link, AtomicLong> delivered = new ConcurrentHashMap<>();
  private final Set<NodeId> crashed = ConcurrentHashMap.newKeySet();
  private final Set<NodeId> hung = ConcurrentHashMap.newKeySet();
  private final List<Runnable> held = new ArrayList<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "tandem-inmem-timer"));
  private volatile Set<NodeId> sideA = Set.of();
  private volatile Set<NodeId> sideB = Set.of();
  private volatile UnaryOperator<Message> wireHook = UnaryOperator.identity();

  /** A new transport on this network; requests time out after {@code requestTimeout}. */
  public InMemoryTransport transport(NodeId id, Duration requestTimeout) {
    return transport(id, requestTimeout, 10_000);
  }

  public InMemoryTransport transport(NodeId id, Duration requestTimeout, int maxInFlight) {
    InMemoryTransport transport = new InMemoryTransport(this, id, requestTimeout, maxInFlight);
    if (nodes.putIfAbsent(id, transport) != null) {
      throw new IllegalArgumentException(id + " is already on the network");
    }
    crashed.remove(id);
    return transport;
  }

  /** Applied to every request and reply in flight: for example a round trip through the real wire codec. */
  public void setWireHook(UnaryOperator<Message> hook) {
    this.wireHook = hook;
  }

  /** The node stops sending and receiving; requests to it fail as unreachable. */
  public void crash(NodeId id) {
    crashed.add(id);
    InMemoryTransport transport = nodes.remove(id);
    if (transport != null) {
      transport.failPending("node crashed");
    }
  }

  /** Requests to the node are held, unanswered, until {@link #resume}; meanwhile they time out. */
  public void hang(NodeId id) {
    hung.add(id);
  }

  public void resume(NodeId id) {
    hung.remove(id);
    List<Runnable> release;
    synchronized (this) {
      release = new ArrayList<>(held);
      held.clear();
    }
    release.forEach(Runnable::run);
  }

  /** Requests between the two sides fail as unreachable until {@link #heal}. */
  public void partition(Set<NodeId> a, Set<NodeId> b) {
    sideA = Set.copyOf(a);
    sideB = Set.copyOf(b);
  }

  public void heal() {
    sideA = Set.of();
    sideB = Set.of();
  }

  /** The next {@code n} requests from {@code from} to {@code to} are lost silently (they time out). */
  public void dropNext(NodeId from, NodeId to, int n) {
    toDrop.computeIfAbsent(new Link(from, to), l -> new AtomicInteger()).addAndGet(n);
  }

  /** Requests from {@code from} handled by {@code to} so far. */
  public long delivered(NodeId from, NodeId to) {
    AtomicLong count = delivered.get(new Link(from, to));
    return count == null ? 0 : count.get();
  }

  CompletableFuture<Message> send(NodeId from, NodeId to, Message request, Duration timeout) {
    CompletableFuture<Message> reply = new CompletableFuture<>();
    timer.schedule(
        () -> reply.completeExceptionally(new TimeoutException("no reply from " + to + " within " + timeout.toMillis() + "ms")),
        timeout.toMillis(),
        TimeUnit.MILLISECONDS);
    String unreachable = unreachableReason(from, to);
    if (unreachable != null) {
      reply.completeExceptionally(new PeerUnreachableException(to, unreachable));
      return reply;
    }
    Link link = new Link(from, to);
    AtomicInteger drops = toDrop.get(link);
    if (drops != null && drops.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return reply;
    }
    Message onWire = wireHook.apply(request);
    links.computeIfAbsent(link, l -> Executors.newSingleThreadExecutor(r -> daemon(r, "tandem-inmem-" + from.value() + "-" + to.value())))
        .execute(() -> deliver(link, onWire, reply));
    return reply;
  }

  private void deliver(Link link, Message request, CompletableFuture<Message> reply) {
    String unreachable = unreachableReason(link.from(), link.to());
    if (unreachable != null) {
      reply.completeExceptionally(new PeerUnreachableException(link.to(), unreachable));
      return;
    }
    if (hung.contains(link.to())) {
      synchronized (this) {
        if (hung.contains(link.to())) {
          ExecutorService executor = links.get(link);
          held.add(() -> executor.execute(() -> deliver(link, request, reply)));
          return;
        }
      }
    }
    InMemoryTransport target = nodes.get(link.to());
    RequestHandler handler = target == null ? null : target.handler();
    if (handler == null) {
      reply.completeExceptionally(new PeerUnreachableException(link.to(), "not started"));
      return;
    }
    delivered.computeIfAbsent(link, l -> new AtomicLong()).incrementAndGet();
    CompletionStage<Message> answer;
    try {
      answer = handler.handle(link.from(), request);
    } catch (RuntimeException e) {
      reply.completeExceptionally(new RemoteHandlerException(link.to(), e.toString()));
      return;
    }
    answer.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            reply.completeExceptionally(new RemoteHandlerException(link.to(), failure.toString()));
          } else if (!crashed.contains(link.to()) && !hung.contains(link.to())) {
            reply.complete(wireHook.apply(response));
          }
        });
  }

  private String unreachableReason(NodeId from, NodeId to) {
    InMemoryTransport target = nodes.get(to);
    if (crashed.contains(to) || target == null || target.isClosed()) {
      return "no such node on the network (crashed or closed)";
    }
    if (crashed.contains(from)) {
      return "sender crashed";
    }
    if ((sideA.contains(from) && sideB.contains(to)) || (sideB.contains(from) && sideA.contains(to))) {
      return "network partition";
    }
    return null;
  }

  void closed(NodeId id, InMemoryTransport transport) {
    nodes.remove(id, transport);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    links.values().forEach(ExecutorService::shutdownNow);
    timer.shutdownNow();
  }
}
