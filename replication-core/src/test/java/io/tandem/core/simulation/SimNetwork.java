package io.tandem.core.simulation;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RemoteHandlerException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * The simulated network between the nodes' transports: every request and reply is encoded into a frame and decoded
 * again (only what the wire carries arrives), travels with a delay the seed picks, in order on its connection (a TCP
 * connection's order), and may be lost with the connection or to a partition.
 *
 * <p>Faults, as a real network shows them to a transport:
 * <ul>
 *   <li>a process killed on a host that stays up ({@link #killed}): its connections close, pending requests to and
 *       from it fail at once with {@link PeerUnreachableException}, a redial is refused, and each peer's {@link
 *       PeerWatcher} hears of it;
 *   <li>a host that goes silent ({@link #hostDown}, a crash or a pulled cable) and a cut link ({@link #cut}, one-way or
 *       both ways): frames vanish, and requests time out;
 *   <li>a paused process: frames to it wait (the simulation holds its events) and are answered when it resumes.
 * </ul>
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton.
 */
final class SimNetwork {
  private final Simulation sim;
  private final int maxFrameSize;
  private final Map<String, SimTransport> transports = new LinkedHashMap<>();
  /** "a>b": what a sends to b is lost. */
  private final Set<String> cuts = new HashSet<>();
  private final Set<String> hostsDown = new HashSet<>();
  /** "a>b": the connection from a to b; a new number drops what the old one carried. */
  private final Map<String, Integer> connections = new HashMap<>();
  /** "a>b": when the last frame on that connection arrives, so that frames keep their order. */
  private final Map<String, Long> lastArrival = new HashMap<>();
  /** Probability that one frame takes a slow path (a busy peer, a full socket buffer) of up to {@link #slowMillis}. */
  private double slowChance = 0.02;
  private long slowMillis = 300;
  private long messagesSent;

  SimNetwork(Simulation sim, int maxFrameSize) {
    this.sim = sim;
    this.maxFrameSize = maxFrameSize;
  }

  void slowFrames(double chance, long upToMillis) {
    this.slowChance = chance;
    this.slowMillis = upToMillis;
  }

  long messagesSent() {
    return messagesSent;
  }

  SimTransport transport(String node, Duration requestTimeout) {
    SimTransport t = new SimTransport(node, sim.incarnation(node), requestTimeout);
    transports.put(node, t);
    hostsDown.remove(node);
    for (String other : transports.keySet()) {
      reconnect(node, other);
      reconnect(other, node);
    }
    return t;
  }

  // ---- faults --------------------------------------------------------------------------------------------------

  /** {@code node}'s process died on a host that stays up: connections close, redials are refused. */
  void killed(String node) {
    SimTransport dead = transports.get(node);
    if (dead == null) {
      return;
    }
    dead.closed = true;
    for (SimTransport t : transports.values()) {
      if (t == dead) {
        continue;
      }
      reconnect(t.node, node);
      reconnect(node, t.node);
      t.failPendingTo(node, "connection to " + node + " closed");
      if (!t.closed) {
        SimTransport watcherSide = t;
        sim.afterOn(t.node, t.incarnation, sim.millisBetween(0, 20), "refused " + node,
            () -> watcherSide.watcher.peerRefused(new NodeId(node), "connection closed, redial to sim:" + node + " refused"));
      }
    }
  }

  /** {@code node}'s host went silent (or its process crashed with it): frames vanish, nothing is refused. */
  void hostDown(String node) {
    SimTransport dead = transports.get(node);
    if (dead == null) {
      return;
    }
    dead.closed = true;
    hostsDown.add(node);
    for (SimTransport t : transports.values()) {
      reconnect(t.node, node);
      reconnect(node, t.node);
    }
  }

  /** What {@code from} sends to {@code to} is lost from now on. */
  void cut(String from, String to) {
    cuts.add(from + ">" + to);
  }

  /** What {@code from} sends to {@code to} arrives again; the transport that was cut off redials, and says so. */
  void heal(String from, String to) {
    if (cuts.remove(from + ">" + to)) {
      SimTransport t = transports.get(from);
      if (t != null && !t.closed) {
        sim.afterOn(t.node, t.incarnation, sim.millisBetween(1, 50), "connected " + to,
            () -> t.watcher.peerConnected(new NodeId(to)));
      }
    }
  }

  /** Heals every cut; the transports that were cut off redial, and say so. */
  void healAll() {
    Set<String> healed = new java.util.TreeSet<>(cuts);
    cuts.clear();
    for (String link : healed) {
      String[] ends = link.split(">");
      SimTransport t = transports.get(ends[0]);
      if (t != null && !t.closed) {
        sim.afterOn(t.node, t.incarnation, sim.millisBetween(1, 50), "connected " + ends[1],
            () -> t.watcher.peerConnected(new NodeId(ends[1])));
      }
    }
  }

  /** A node of this name started again: every peer's transport connects to it, and says so. */
  void announce(String node) {
    for (SimTransport t : transports.values()) {
      if (!t.node.equals(node) && !t.closed) {
        sim.afterOn(t.node, t.incarnation, sim.millisBetween(1, 50), "connected " + node,
            () -> t.watcher.peerConnected(new NodeId(node)));
      }
    }
  }

  boolean isCut(String from, String to) {
    return cuts.contains(from + ">" + to);
  }

  private void reconnect(String from, String to) {
    connections.merge(from + ">" + to, 1, Integer::sum);
  }

  private int connection(String from, String to) {
    return connections.getOrDefault(from + ">" + to, 0);
  }

  /** When a frame sent now on {@code link} arrives: after a random delay, and never before the one sent before it. */
  private long arrival(String link) {
    long delay = sim.chance(slowChance) ? sim.millisBetween(1, slowMillis) : sim.millisBetween(0, 2) + sim.random().nextInt(500_000);
    long at = Math.max(sim.nanos() + delay, lastArrival.getOrDefault(link, 0L));
    lastArrival.put(link, at);
    return at - sim.nanos();
  }

  private static byte[] frame(long correlationId, boolean response, Message message) {
    ByteBuffer encoded = MessageCodec.encode(new Envelope(correlationId, response, message));
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);
    return bytes;
  }

  private Message decode(byte[] bytes) {
    return MessageCodec.decodeFrame(ByteBuffer.wrap(bytes), maxFrameSize).message();
  }

  /** One node's transport. */
  final class SimTransport implements Transport {
    final String node;
    final int incarnation;
    private final NodeId id;
    private final Duration requestTimeout;
    private final Map<Long, Pending> pending = new LinkedHashMap<>();
    private final Map<String, Long> lastHeard = new HashMap<>();
    private RequestHandler handler;
    private PeerWatcher watcher = PeerWatcher.NONE;
    private boolean closed;
    private long correlation;

    SimTransport(String node, int incarnation, Duration requestTimeout) {
      this.node = node;
      this.incarnation = incarnation;
      this.id = new NodeId(node);
      this.requestTimeout = requestTimeout;
    }

    @Override
    public NodeId localNode() {
      return id;
    }

    @Override
    public String localAddress() {
      return "sim:" + node;
    }

    @Override
    public void start(RequestHandler requestHandler) {
      this.handler = requestHandler;
    }

    @Override
    public void updatePeers(MembershipView view) {}

    @Override
    public void watchPeers(PeerWatcher peerWatcher) {
      this.watcher = peerWatcher;
    }

    @Override
    public CompletableFuture<Message> request(NodeId peer, Message message) {
      return request(peer, message, requestTimeout);
    }

    @Override
    public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
      CompletableFuture<Message> reply = new CompletableFuture<>();
      String to = peer.value();
      if (closed) {
        reply.completeExceptionally(new PeerUnreachableException(peer, "transport " + node + " is closed"));
        return reply;
      }
      SimTransport target = transports.get(to);
      if (target == null || (target.closed && !hostsDown.contains(to))) {
        sim.trace().message(node + " -> " + to + " refused: " + Messages.brief(message));
        reply.completeExceptionally(new PeerUnreachableException(peer, "connection to sim:" + to + " refused"));
        return reply;
      }
      byte[] bytes;
      try {
        bytes = frame(++correlation, false, message);
      } catch (RuntimeException e) {
        reply.completeExceptionally(e);
        return reply;
      }
      long corr = correlation;
      Pending p = new Pending(to, reply, connection(node, to));
      pending.put(corr, p);
      messagesSent++;
      sim.trace().message(node + " -> " + to + " #" + corr + " " + Messages.brief(message));
      sim.afterOn(node, incarnation, timeout.toNanos(), "timeout #" + corr, () -> {
        if (pending.remove(corr) != null) {
          reply.completeExceptionally(new TimeoutException("no reply from " + to + " within " + timeout.toMillis() + "ms"));
        }
      });
      int targetIncarnation = target.incarnation;
      String link = node + ">" + to;
      sim.afterOn(to, targetIncarnation, arrival(link), "deliver #" + corr, () -> target.receive(this, corr, bytes, p.connection));
      return reply;
    }

    /** A request from {@code from} arrives here. */
    private void receive(SimTransport from, long corr, byte[] bytes, int onConnection) {
      if (closed || isCut(from.node, node) || connection(from.node, node) != onConnection) {
        sim.trace().message(from.node + " -> " + node + " #" + corr + " lost");
        return;
      }
      lastHeard.put(from.node, sim.nanos());
      Message request = decode(bytes);
      CompletionStage<Message> answer;
      try {
        answer = handler.handle(from.id, request);
      } catch (RuntimeException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      answer.whenComplete((reply, failure) -> {
        if (closed || !sim.alive(node) || sim.incarnation(node) != incarnation) {
          return;
        }
        byte[] back;
        try {
          back = failure == null ? frame(corr, true, reply) : null;
        } catch (RuntimeException e) {
          back = null;
          failure = e;
        }
        byte[] replyBytes = back;
        Throwable failed = failure;
        String link = node + "<" + from.node;
        sim.afterOn(from.node, from.incarnation, arrival(link), "reply #" + corr,
            () -> from.replied(this, corr, replyBytes, failed, onConnection));
      });
    }

    /** The reply to request {@code corr} arrives here from {@code by}. */
    private void replied(SimTransport by, long corr, byte[] bytes, Throwable failure, int onConnection) {
      Pending p = pending.get(corr);
      if (p == null || closed || isCut(by.node, node) || connection(node, by.node) != onConnection) {
        sim.trace().message(by.node + " -> " + node + " reply #" + corr + " lost");
        return;
      }
      pending.remove(corr);
      lastHeard.put(by.node, sim.nanos());
      if (failure != null) {
        p.reply.completeExceptionally(new RemoteHandlerException(by.id, String.valueOf(failure)));
      } else {
        Message message = decode(bytes);
        sim.trace().message(by.node + " -> " + node + " reply #" + corr + " " + Messages.brief(message));
        p.reply.complete(message);
      }
    }

    /** Fails what this node waits for from {@code peer}: the connection closed. */
    void failPendingTo(String peer, String why) {
      for (Map.Entry<Long, Pending> e : new LinkedHashMap<>(pending).entrySet()) {
        if (e.getValue().to.equals(peer)) {
          pending.remove(e.getKey());
          CompletableFuture<Message> reply = e.getValue().reply;
          sim.afterOn(node, incarnation, sim.millisBetween(0, 5), "reset #" + e.getKey(),
              () -> reply.completeExceptionally(new PeerUnreachableException(new NodeId(peer), why)));
        }
      }
    }

    @Override
    public boolean refusesConnections(Member member) {
      String peer = member.id().value();
      SimTransport target = transports.get(peer);
      if (target != null && target.closed && !hostsDown.contains(peer)) {
        return true;
      }
      boolean silent = target == null || hostsDown.contains(peer) || isCut(node, peer) || sim.paused(peer);
      if (silent && sim.actors().onActor()) {
        try {
          // a dial into silence waits for the connect timeout
          sim.actors().waiter().await(new CompletableFuture<Void>(), Duration.ofSeconds(1).toNanos());
        } catch (TimeoutException expected) {
          // nothing answered
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException(e);
        }
      }
      return false;
    }

    @Override
    public boolean heardFromWithin(NodeId peer, Duration within) {
      Long heard = lastHeard.get(peer.value());
      return heard != null && !closed && sim.nanos() - heard <= within.toNanos() && !isCut(peer.value(), node)
          && transports.get(peer.value()) != null && !transports.get(peer.value()).closed;
    }

    @Override
    public void close() {
      closed = true;
      for (SimTransport t : transports.values()) {
        if (t != this) {
          t.failPendingTo(node, "connection to " + node + " closed");
        }
      }
      for (Map.Entry<Long, Pending> e : new LinkedHashMap<>(pending).entrySet()) {
        pending.remove(e.getKey());
        e.getValue().reply.completeExceptionally(new PeerUnreachableException(new NodeId(e.getValue().to), "transport " + node + " closed"));
      }
    }
  }

  private record Pending(String to, CompletableFuture<Message> reply, int connection) {}
}
