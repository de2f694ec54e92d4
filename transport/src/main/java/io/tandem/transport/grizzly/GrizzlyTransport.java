package io.tandem.transport.grizzly;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.CorruptFrameException;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.core.wire.WireException;
import io.tandem.transport.membership.MemberProber;
import io.tandem.transport.membership.ProbeOutcome;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;

/**
 * The {@link Transport} over Grizzly TCP NIO. One connection per pair of members: the member with the lower node id
 * dials, the other accepts, so the two never race to open two. Both ends authenticate with an HMAC challenge over
 * the cluster's shared secret before anything else is read; optionally the connection runs over TLS.
 *
 * <p>Frames are cut and decoded by core's {@code FrameDecoder} (the maximum frame size is enforced before anything
 * is buffered) and handled by {@link InboundFrames}. A bad frame is answered with a {@code Nack} naming the cause
 * and the connection goes on; lost framing closes the connection.
 *
 * <p>The hot path is batched at both ends. A request is encoded on the caller's thread and handed to the connection's
 * {@link OutboundQueue}; its selector thread writes everything handed over since its last flush in one write (group
 * commit); with a write linger ({@link GrizzlyTransportConfig#writeLinger()}), a request made while another awaits
 * its reply is held and written with the others held, right after the read that brings that reply. The peer applies
 * what one read brought in and acknowledges it with one {@link
 * io.tandem.core.wire.Message.AckRange} frame ({@link ReplyBatch}); refusals and other replies travel alone. Each
 * pending request keeps its own deadline ({@link PendingReplies}), enforced by one periodic {@link DeadlineSweep}.
 * Outbound bytes not yet written are bounded per peer; past the bound requests fail at once with {@link
 * BackPressureException} instead of queueing.
 *
 * <p>Implementation notes:
 *
 * <ul>
 *   <li>Reads use Grizzly's same-thread strategy: a connection's frames are decoded and handled one at a time on
 *       its selector thread, which gives the contract's per-sender order and no concurrent handling.
 *   <li>{@code ready} (authenticated connection per peer), {@code byConnection} and {@code addresses} are
 *       concurrent maps. {@code waiting} (requests queued until a peer's connection is ready) and {@code dialing}
 *       are guarded by {@code lock}, as is the decision to queue; a send on a ready connection with nothing queued
 *       takes no lock (see {@link #request}). Queued requests leave in order because one thread drains a peer's
 *       queue and later requests join it until it is empty.
 *   <li>No lock is held while a future is completed, a frame is written or a connection is dialed: a caller may
 *       hold a session lock that a future's callback also takes. Sending and closing need no lock between them
 *       (see {@link #send}).
 *   <li>Timers (the deadline sweep, connect timeouts of queued requests, redials) run on one {@code
 *       tandem-transport-timer-<node>} thread. So do the {@link PeerWatcher} events, which keeps them in order.
 *   <li>Fast death detection: when the ready connection to a member closes, a {@link RedialCheck} runs on a
 *       {@code tandem-transport-check-<node>} thread. A refusal is reported to the watcher (on the timer thread)
 *       only if no connection to that peer became ready since the close ({@code lost} holds the close's token,
 *       removed by {@link #becameReady}); the peer is then in {@code refusedPeers}, and requests to it fail at once
 *       instead of waiting for a connection, until it connects again or leaves the view. Both are concurrent.
 * </ul>
 */
public final class GrizzlyTransport implements Transport, MemberProber {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final GrizzlyTransportConfig config;
  private final NodeId local;
  private final PeerAuthenticator authenticator;
  private final RateLimitedLog log;
  private final Refusals refusals;
  private final UnauthenticatedConnections unauthenticated;
  private final HandshakeProtocol handshake;
  private final MemberProbe memberProbe;
  private final Map<NodeId, String> refusedMembers = new ConcurrentHashMap<>();
  private final ExecutorService probes;
  private final ExecutorService redialChecks;
  /** Peers whose ready connection closed and that have not connected again, with the close's token. */
  private final Map<NodeId, Long> lost = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong closes = new java.util.concurrent.atomic.AtomicLong();
  /** Peers reported refused, and not connected again since. */
  private final java.util.Set<NodeId> refusedPeers = ConcurrentHashMap.newKeySet();
  private volatile PeerWatcher watcher = PeerWatcher.NONE;
  private final LongSupplier nanoClock;
  private final Map<NodeId, PeerConnection> ready = new ConcurrentHashMap<>();
  private final Map<Connection<?>, PeerConnection> byConnection = new ConcurrentHashMap<>();
  private final Map<NodeId, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  /** Guards {@link #waiting} and {@link #dialing}; never held while completing a future or doing I/O. */
  private final Object lock = new Object();

  /** Mutated under {@code lock}; concurrent so that a send can see, without the lock, that no queue is there. */
  @GuardedBy("lock")
  private final Map<NodeId, Queue> waiting = new ConcurrentHashMap<>();

  @GuardedBy("lock")
  private final Map<SocketAddress, NodeId> dialing = new HashMap<>();
  private final Map<NodeId, Duration> backoff = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private final TransportCounters counters = new TransportCounters();
  private TCPNIOTransport grizzly;
  /** Set once by {@link #start}, before any connection can read. */
  private volatile InboundFrames inbound;
  private final DeadlineSweep deadlines;
  private volatile InetSocketAddress boundAddress;
  private volatile boolean closed;
  private volatile Hooks hooks = Hooks.NONE;

  private record Waiting(Message message, CompletableFuture<Message> reply, Duration timeout) {}

  /**
   * Requests for one peer that arrived while it had no ready connection, in arrival order. Once the connection is
   * ready one thread drains it outside the lock; requests arriving meanwhile join the queue instead of overtaking it,
   * which keeps each caller's requests in order without holding a lock across the writes.
   */
  private static final class Queue {
    final List<Waiting> items = new ArrayList<>();
    boolean draining;

    List<Waiting> takeAll() {
      List<Waiting> taken = List.copyOf(items);
      items.clear();
      return taken;
    }
  }

  /** Points where a test can interleave a thread deterministically; no-ops in production. */
  interface Hooks {
    Hooks NONE = new Hooks() {};

    /** A send checked that its connection is open and is about to register its pending reply. */
    default void beforeRegisteringReply(PeerConnection connection) {}

    /** A connection's pending replies have been failed. */
    default void afterClosed(PeerConnection connection) {}
  }

  void hooks(Hooks testHooks) {
    this.hooks = testHooks;
  }

  public GrizzlyTransport(GrizzlyTransportConfig config) {
    this(config, new RateLimitedLog(LOG), System::nanoTime);
  }

  /** For tests: the log refusals go to, and the clock deadlines are measured on. */
  GrizzlyTransport(GrizzlyTransportConfig config, RateLimitedLog log, LongSupplier nanoClock) {
    this.config = config;
    this.local = config.localNode();
    this.log = log;
    this.nanoClock = nanoClock;
    this.refusals = new Refusals(log);
    this.unauthenticated = new UnauthenticatedConnections(config.maxUnauthenticatedConnections(), config.maxUnauthenticatedPerAddress());
    this.authenticator = new PeerAuthenticator(config.sharedSecret(), config.clusterName());
    this.handshake = new HandshakeProtocol(config, authenticator, new HandshakeLink());
    this.memberProbe = new MemberProbe(config, authenticator);
    this.deadlines = new DeadlineSweep(config, nanoClock, this::refuse, counters);
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("tandem-transport-timer-" + local.value()));
    AtomicInteger probeThreads = new AtomicInteger();
    this.probes = new ThreadPoolExecutor(0, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> daemon("tandem-transport-probe-" + local.value() + "-" + probeThreads.incrementAndGet()).newThread(r));
    AtomicInteger checkThreads = new AtomicInteger();
    this.redialChecks = new ThreadPoolExecutor(0, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> daemon("tandem-transport-check-" + local.value() + "-" + checkThreads.incrementAndGet()).newThread(r));
  }

  @Override
  public void watchPeers(PeerWatcher peerWatcher) {
    this.watcher = java.util.Objects.requireNonNull(peerWatcher, "peerWatcher");
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public NodeId localNode() {
    return local;
  }

  /** {@code host:port} this node listens on; known once started. */
  @Override
  public String localAddress() {
    InetSocketAddress bound = boundAddress;
    if (bound == null) {
      throw new IllegalStateException("transport of " + local.value() + " is not started");
    }
    return bound.getHostString() + ":" + bound.getPort();
  }

  @Override
  public synchronized void start(RequestHandler requestHandler) throws IOException {
    if (grizzly != null) {
      throw new IllegalStateException("already started");
    }
    this.inbound = new InboundFrames(requestHandler, handshake, refusals, counters);
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter());
    if (config.tls() != null) {
      SSLEngineConfigurator server = new SSLEngineConfigurator(config.tls(), false, true, true);
      SSLEngineConfigurator client = new SSLEngineConfigurator(config.tls(), true, false, false);
      chain.add(new SSLFilter(server, client));
    }
    chain.add(new TandemFilter());
    grizzly = TCPNIOTransportBuilder.newInstance()
        .setName("tandem-transport-" + local.value())
        .setIOStrategy(SameThreadIOStrategy.getInstance())
        .setSelectorRunnersCount(2)
        .setTcpNoDelay(true)
        .setReuseAddress(true)
        .setProcessor(chain.build())
        .build();
    grizzly.start();
    long period = deadlines.periodMillis();
    timer.scheduleWithFixedDelay(this::sweepSafely, period, period, TimeUnit.MILLISECONDS);
    TCPNIOServerConnection server = grizzly.bind(config.bindHost(), config.port());
    boundAddress = (InetSocketAddress) server.getLocalAddress();
    LOG.log(Level.INFO, "Tandem transport of {0} listening on {1} ({2})", local.value(), localAddress(), config);
    if (config.protocolVersions().highest() > ProtocolVersions.IMPLEMENTED.highest()) {
      LOG.log(Level.WARNING, "Tandem transport of {0} advertises protocol versions {1}, above the {2} this build implements"
          + " (the test hook {3}, or a test''s configuration). It exists for the rolling-upgrade drill only; remove it from any real node",
          local.value(), config.protocolVersions(), ProtocolVersions.IMPLEMENTED,
          ProtocolVersions.HIGHEST_PROPERTY);
    }
  }

  @Override
  public void updatePeers(MembershipView view) {
    for (Member member : view.members()) {
      if (!member.id().equals(local)) {
        parseAddress(member).ifPresent(a -> addresses.put(member.id(), a));
      }
    }
    for (NodeId known : List.copyOf(addresses.keySet())) {
      if (!view.contains(known)) {
        addresses.remove(known);
        lost.remove(known);
        refusedPeers.remove(known);
        PeerConnection gone = ready.remove(known);
        if (gone != null) {
          closeWhenAnswered(gone);
        }
        failWaiters(known, "no longer a member");
      }
    }
    for (NodeId peer : addresses.keySet()) {
      if (!ready.containsKey(peer)) {
        reinstate(peer);
      }
      if (local.compareTo(peer) < 0 && !ready.containsKey(peer)) {
        dial(peer);
      }
    }
  }

  /** A member back in the view whose connection was kept open for its pending replies gets that connection back. */
  private void reinstate(NodeId peer) {
    synchronized (lock) {
      for (PeerConnection connection : byConnection.values()) {
        if (peer.equals(connection.peer()) && connection.state() == PeerConnection.State.READY) {
          ready.putIfAbsent(peer, connection);
          return;
        }
      }
    }
  }

  /**
   * A member left the view: nothing new is sent to it, but requests already sent get their replies, up to the
   * request timeout. A view can drop a live peer for a moment (this node was paused, or the membership flapped),
   * and a reply lost that way can be costly: a migrated session's only copy travels in one.
   */
  private void closeWhenAnswered(PeerConnection connection) {
    if (connection.pending.isEmpty()) {
      connection.connection.closeSilently();
      return;
    }
    timer.schedule(() -> connection.connection.closeSilently(), config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public boolean refusesConnections(Member member) {
    return parseAddress(member).map(address -> RedialCheck.dial(address, config.connectTimeout()) == RedialCheck.Result.REFUSED)
        .orElse(false);
  }

  private java.util.Optional<InetSocketAddress> parseAddress(Member member) {
    String address = member.transportAddress();
    int colon = address.lastIndexOf(':');
    try {
      return java.util.Optional.of(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
    } catch (RuntimeException e) {
      log.warn("address:" + member.id(), "Member " + member.id().value() + " advertises '" + address + "', which is not host:port");
      return java.util.Optional.empty();
    }
  }

  // ---- sending -------------------------------------------------------------------------------------------------

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return request(peer, message, true, config.requestTimeout());
  }

  /** The reply's deadline is {@code timeout} from now instead of {@code requestTimeout}; enforced by the same sweep. */
  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return request(peer, message, true, timeout);
  }

  /** Leaves the write to the connection's I/O thread, which writes this frame together with the ones after it. */
  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return request(peer, message, false, config.requestTimeout());
  }

  /** {@link #requestBatched(NodeId, Message)} with the reply's deadline {@code timeout} from now. */
  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message, Duration timeout) {
    return request(peer, message, false, timeout);
  }

  /**
   * Whether requests to {@code peer} wait in a queue, read without the lock: {@code waiting} is a concurrent map, and
   * the fast path's ordering argument (in {@link #request(NodeId, Message, boolean, Duration)}) needs only this read.
   */
  @SuppressWarnings("GuardedBy")
  private boolean queuedWithoutLock(NodeId peer) {
    return waiting.containsKey(peer);
  }

  /**
   * @param writeNow the caller writes the frame itself when no other write is under way (see {@link #send})
   * @param timeout how long the reply may take once the request is sent
   */
  private CompletableFuture<Message> request(NodeId peer, Message message, boolean writeNow, Duration timeout) {
    CompletableFuture<Message> reply = new CompletableFuture<>();
    if (closed || grizzly == null) {
      reply.completeExceptionally(new PeerUnreachableException(peer, "transport of " + local.value() + " is not running"));
      return reply;
    }
    // The common case takes no lock: a ready connection and no queue of earlier requests waiting for one. A queue
    // is created only while the peer has no ready connection, and removed only after it was drained onto the ready
    // one; reading "ready" before "waiting" therefore never lets this request overtake a queued one.
    PeerConnection fast = ready.get(peer);
    if (fast != null && !queuedWithoutLock(peer)) {
      send(fast, message, reply, writeNow, timeout);
      return reply;
    }
    // Only the decision is taken under the lock: the send, and any failure it completes, happen after it is released
    // (a caller may hold a session lock that a future's callback also takes).
    PeerConnection connection;
    Queue queue;
    Queue toDrain = null;
    synchronized (lock) {
      connection = ready.get(peer);
      queue = waiting.get(peer);
      if (queue == null && connection == null && addresses.containsKey(peer) && !refusedPeers.contains(peer)) {
        queue = new Queue();
        waiting.put(peer, queue);
      }
      if (queue != null) {
        queue.items.add(new Waiting(message, reply, timeout));
        if (connection != null && !queue.draining) {
          queue.draining = true; // a connection came back without draining (reinstated): this caller drains
          toDrain = queue;
        }
      }
    }
    if (queue == null && connection != null) {
      send(connection, message, reply, writeNow, timeout);
    } else if (queue == null) {
      reply.completeExceptionally(new PeerUnreachableException(peer, refusedPeers.contains(peer)
          ? "its connection closed and its host refused a new one" : "not a member of the current view"));
    } else if (toDrain != null) {
      drain(peer, toDrain, connection);
    } else {
      if (connection == null && local.compareTo(peer) < 0) {
        dial(peer);
      }
      timer.schedule(() -> expireWaiting(peer, reply), config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }
    return reply;
  }

  /** Fails a request still queued for a connection after the connect timeout; one already sent is left alone. */
  private void expireWaiting(NodeId peer, CompletableFuture<Message> reply) {
    boolean removed = false;
    synchronized (lock) {
      Queue queue = waiting.get(peer);
      if (queue != null) {
        removed = queue.items.removeIf(w -> w.reply() == reply);
      }
    }
    if (removed) {
      reply.completeExceptionally(new PeerUnreachableException(peer, "no connection within " + config.connectTimeout().toMillis() + "ms"));
    }
  }

  /**
   * Sends one request on a ready connection, with no lock held: the frame is encoded on the caller's thread and handed
   * to the connection's {@link OutboundQueue}. With {@code writeNow} (a caller that waits for the reply) the caller
   * writes it itself unless another write is under way, which then takes it along: a lone request costs no wake-up of
   * the I/O thread, which on a loaded node costs more CPU than the write. Otherwise the I/O thread writes it with
   * whatever else is queued by then (a sender with more to send right after). The
   * request's deadline is kept with its pending entry and enforced by the {@link DeadlineSweep}: no timer task per request.
   *
   * <p>Closing races sending without a lock between them: {@link #closed} marks the connection CLOSED and then
   * fails what is pending; a send registers its pending reply and then checks for CLOSED. Whichever runs second
   * sees the other's step, so a send racing a close fails at once instead of waiting out its timeout; only one of
   * them removes the pending entry, and that one completes the reply.
   */
  private void send(PeerConnection connection, Message message, CompletableFuture<Message> reply, boolean writeNow,
      Duration timeout) {
    if (connection.state() != PeerConnection.State.READY) {
      reply.completeExceptionally(new PeerUnreachableException(connection.peer(), "connection closed"));
      return;
    }
    long id = connection.nextCorrelationId();
    ByteBuffer frame = MessageCodec.encode(new Envelope(id, false, message), connection.protocolVersion());
    int size = frame.remaining();
    if (!connection.outbound.reserve(size, config.maxQueuedBytesPerPeer())) {
      counters.backPressure.increment();
      reply.completeExceptionally(new BackPressureException(connection.peer(), connection.outbound.queuedBytes(),
          config.maxQueuedBytesPerPeer()));
      return;
    }
    hooks.beforeRegisteringReply(connection);
    long readsBefore = connection.outbound.readsDone(); // see OutboundQueue: no hold behind a reply already read
    boolean othersAwaited =
        connection.pending.register(id, message, reply, nanoClock.getAsLong() + timeout.toNanos(), timeout.toMillis()) > 0;
    if (connection.state() != PeerConnection.State.READY) {
      connection.outbound.release(size);
      if (connection.pending.forget(id, reply)) {
        reply.completeExceptionally(new PeerUnreachableException(connection.peer(), "connection closed"));
      }
      return;
    }
    counters.sent.increment();
    if (writeNow) {
      connection.outbound.enqueueAndWrite(frame, othersAwaited, readsBefore);
    } else {
      connection.outbound.enqueueReserved(frame);
    }
  }

  private OutboundQueue outbound(Connection<?> connection) {
    return new OutboundQueue(new SelectorThreadSink(connection, grizzly), counters.framesWritten,
        counters.writes, counters.callerWrites, config.writeLinger(), System::nanoTime);
  }

  // ---- connections -----------------------------------------------------------------------------------------------

  private void dial(NodeId peer) {
    InetSocketAddress address;
    synchronized (lock) {
      address = addresses.get(peer);
      if (address == null || closed || ready.containsKey(peer) || dialing.containsValue(peer) || handshaking(peer)) {
        return;
      }
      dialing.put(address, peer);
    }
    counters.dialed.increment();
    // Outside the lock: a connect that fails at once runs failed() on this thread, which completes futures.
    grizzly.connect(address, new EmptyCompletionHandler<>() {
      @Override
      public void failed(Throwable error) {
        synchronized (lock) {
          dialing.remove(address);
        }
        Long token = lost.get(peer);
        if (token != null && error instanceof java.net.ConnectException
            && String.valueOf(error.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("refused")) {
          // A redial of a lost peer refused: the same sign as the check's, in case the check came too early.
          onTimer(() -> reportRefused(peer, token, address));
        }
        failWaiters(peer, "cannot connect to " + address + ": " + error.getMessage());
        scheduleRedial(peer);
      }
    });
  }

  /** Whether a connection this node dialed to {@code peer} is still in its handshake. */
  private boolean handshaking(NodeId peer) {
    for (PeerConnection connection : byConnection.values()) {
      if (connection.dialer && peer.equals(connection.peer()) && connection.state() != PeerConnection.State.CLOSED) {
        return true;
      }
    }
    return false;
  }

  private void scheduleRedial(NodeId peer) {
    if (closed || !addresses.containsKey(peer) || local.compareTo(peer) > 0) {
      return;
    }
    Duration delay = backoff.merge(peer, config.reconnectBackoffMin(),
        (previous, min) -> previous.multipliedBy(2).compareTo(config.reconnectBackoffMax()) > 0 ? config.reconnectBackoffMax() : previous.multipliedBy(2));
    timer.schedule(() -> dial(peer), delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void failWaiters(NodeId peer, String reason) {
    List<Waiting> failed = List.of();
    synchronized (lock) {
      Queue queue = waiting.remove(peer);
      if (queue != null) {
        failed = queue.takeAll(); // a drainer holding this queue finds it empty and stops
      }
    }
    failed.forEach(w -> w.reply().completeExceptionally(new PeerUnreachableException(peer, reason)));
  }

  private void becameReady(PeerConnection connection) {
    NodeId peer = connection.peer();
    PeerConnection previous;
    Queue queue;
    synchronized (lock) {
      connection.state(PeerConnection.State.READY);
      previous = ready.put(peer, connection);
      backoff.remove(peer);
      lost.remove(peer);
      refusedPeers.remove(peer);
      queue = waiting.get(peer);
      if (queue != null && queue.draining) {
        queue = null; // another connection's drainer is at work; it sends what arrives meanwhile
      } else if (queue != null) {
        queue.draining = true;
      }
    }
    if (previous != null && previous != connection) {
      previous.connection.closeSilently();
    }
    if (queue != null) {
      drain(peer, queue, connection);
    }
    onTimer(() -> watcher.peerConnected(peer));
    LOG.log(Level.DEBUG, "Tandem transport {0}: connected to {1}, speaking protocol version {2}", local.value(),
        connection.describe(), connection.protocolVersion());
  }

  /** Sends a peer's queued requests in order, outside the lock, until the queue stays empty; then retires it. */
  private void drain(NodeId peer, Queue queue, PeerConnection connection) {
    while (true) {
      List<Waiting> batch;
      synchronized (lock) {
        batch = queue.takeAll();
        if (batch.isEmpty()) {
          waiting.remove(peer, queue);
          return;
        }
      }
      for (Waiting w : batch) {
        if (!w.reply().isDone()) {
          send(connection, w.message(), w.reply(), false, w.timeout());
        }
      }
    }
  }

  private void closed(PeerConnection connection) {
    connection.state(PeerConnection.State.CLOSED);
    releaseSlot(connection);
    byConnection.remove(connection.connection);
    NodeId peer = connection.peer();
    boolean wasCurrent = peer != null && ready.remove(peer, connection);
    connection.outbound.close();
    NodeId failedPeer = peer == null ? local : peer;
    connection.pending.failAll(() -> new PeerUnreachableException(failedPeer, "connection closed"));
    hooks.afterClosed(connection);
    if (connection.dialer && (wasCurrent || !ready.containsKey(peer))) {
      scheduleRedial(peer);
    }
    if (wasCurrent && !closed) {
      checkRedial(peer);
    }
  }

  /**
   * The ready connection to {@code peer} closed: whichever end dials, ask its host at once whether it still listens
   * (see {@link RedialCheck}). A refusal fails the requests waiting for a connection to it and tells the watcher.
   */
  private void checkRedial(NodeId peer) {
    InetSocketAddress address = addresses.get(peer);
    if (address == null || ready.containsKey(peer)) {
      return;
    }
    long token = closes.incrementAndGet();
    lost.put(peer, token);
    try {
      redialChecks.execute(() -> {
        if (RedialCheck.dial(address, config.connectTimeout()) == RedialCheck.Result.REFUSED) {
          onTimer(() -> reportRefused(peer, token, address));
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the transport is closing
    }
  }

  /** On the timer thread: a refusal still current (no connection became ready since the close) is reported. */
  private void reportRefused(NodeId peer, long token, InetSocketAddress address) {
    if (closed || !Long.valueOf(token).equals(lost.get(peer)) || ready.containsKey(peer) || !addresses.containsKey(peer)
        || refusedPeers.contains(peer)) {
      return;
    }
    refusedPeers.add(peer);
    counters.refusedRedials.increment();
    failWaiters(peer, "its connection closed and " + address + " refused a new one");
    LOG.log(Level.INFO, "Tandem transport {0}: the connection to {1} closed and {2} refused a new one at once",
        local.value(), peer.value(), address);
    watcher.peerRefused(peer, "connection closed, redial to " + address + " refused");
  }

  private void onTimer(Runnable event) {
    try {
      timer.execute(() -> {
        try {
          event.run();
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "Tandem transport " + local.value() + ": a peer watcher failed", e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the transport is closing: nobody is left to tell
    }
  }

  // ---- reading ---------------------------------------------------------------------------------------------------

  /** Cuts frames, runs the handshake, dispatches requests and replies. */
  private final class TandemFilter extends BaseFilter {
    @Override
    public NextAction handleAccept(FilterChainContext ctx) {
      counters.accepted.increment();
      Connection<?> connection = ctx.getConnection();
      String ip = Refusals.ip(connection.getPeerAddress());
      if (closed || !unauthenticated.admit(ip)) {
        refusals.refuse(RefusalCause.TOO_MANY_UNAUTHENTICATED, connection.getPeerAddress(), "Refused a connection from " + ip
            + ": " + unauthenticated.count() + " connections are already in their handshake (limits: "
            + config.maxUnauthenticatedConnections() + " in total, " + config.maxUnauthenticatedPerAddress() + " per address)");
        connection.closeSilently();
        return ctx.getStopAction();
      }
      byConnection.put(connection, new PeerConnection(connection, outbound(connection), false, null, authenticator.newNonce(),
          nanoClock.getAsLong(), true));
      return ctx.getInvokeAction();
    }

    @Override
    public NextAction handleConnect(FilterChainContext ctx) {
      Connection<?> connection = ctx.getConnection();
      PeerConnection peer;
      // Leaving "dialing" and entering "byConnection" is one step under the lock dial() takes: in between, a
      // concurrent request would see neither and dial a second connection, whose handshake then closes this one
      // along with the requests already sent on it.
      synchronized (lock) {
        NodeId expected = dialing.remove((SocketAddress) connection.getPeerAddress());
        if (expected == null) {
          connection.closeSilently();
          return ctx.getStopAction();
        }
        peer = new PeerConnection(connection, outbound(connection), true, expected, authenticator.newNonce(), nanoClock.getAsLong(), false);
        byConnection.put(connection, peer);
      }
      handshake.hello(peer);
      return ctx.getInvokeAction();
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) {
      Buffer input = ctx.getMessage();
      PeerConnection connection = byConnection.get(ctx.getConnection());
      if (connection == null) {
        input.tryDispose();
        return ctx.getStopAction();
      }
      connection.decoder.feed(input.toByteBuffer());
      boolean completedAFrame = false;
      try {
        while (connection.state() != PeerConnection.State.CLOSED) {
          Envelope envelope;
          try {
            envelope = connection.decoder.next();
          } catch (CorruptFrameException e) {
            refuse(connection, RefusalCause.CORRUPT_FRAMING, "lost the framing: " + e.getMessage());
            break;
          } catch (WireException e) {
            completedAFrame = true;
            if (connection.state() == PeerConnection.State.READY) {
              inbound.refuseFrame(connection, e);
            } else {
              handshake.badFrame(connection, e);
            }
            continue;
          }
          if (envelope == null) {
            break;
          }
          completedAFrame = true;
          inbound.onEnvelope(connection, envelope);
        }
      } finally {
        input.tryDispose();
        connection.afterRead(nanoClock.getAsLong(), completedAFrame);
        connection.replies.endOfRead(); // what this read acknowledged leaves in one frame
        connection.outbound.afterRead(); // writes the requests held while this read's replies were awaited
      }
      return ctx.getStopAction();
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) {
      PeerConnection connection = byConnection.get(ctx.getConnection());
      if (connection != null) {
        closed(connection);
      }
      return ctx.getInvokeAction();
    }
  }

  /** The handshake's view of this transport; see {@link HandshakeProtocol}. */
  private final class HandshakeLink implements HandshakeProtocol.Link {
    @Override
    public void write(PeerConnection connection, ByteBuffer frame) {
      connection.outbound.enqueue(frame);
    }

    @Override
    public void authenticated(PeerConnection connection) {
      connection.decoder.maxFrameSize(config.maxFrameSize());
      connection.decoder.protocolVersion(connection.protocolVersion());
      releaseSlot(connection);
      becameReady(connection);
    }

    @Override
    public void refuse(PeerConnection connection, RefusalCause cause, String why) {
      GrizzlyTransport.this.refuse(connection, cause, why);
    }

    /**
     * Written straight to Grizzly, not through the connection's queue (which a close drops), and closed once written
     * or failed; the connection is CLOSED at once, so nothing else is read or sent on it meanwhile.
     */
    @Override
    @SuppressWarnings("unchecked")
    public void refuseAnswering(PeerConnection connection, RefusalCause cause, String why, ByteBuffer answer) {
      refusals.refuse(cause, connection.connection.getPeerAddress(), "Refused the connection from " + connection.describe() + ": it " + why);
      connection.state(PeerConnection.State.CLOSED);
      Connection<SocketAddress> socket = (Connection<SocketAddress>) connection.connection;
      socket.write(Buffers.wrap(grizzly.getMemoryManager(), answer),
          new EmptyCompletionHandler<WriteResult<Buffer, SocketAddress>>() {
            @Override
            public void completed(WriteResult<Buffer, SocketAddress> result) {
              socket.closeSilently();
            }

            @Override
            public void failed(Throwable error) {
              socket.closeSilently();
            }
          });
    }
  }

  /** Counts and logs (rate-limited, per source IP) why a connection is refused, and closes it. */
  private void refuse(PeerConnection connection, RefusalCause cause, String why) {
    refusals.refuse(cause, connection.connection.getPeerAddress(), "Refused the connection from " + connection.describe() + ": it " + why);
    connection.state(PeerConnection.State.CLOSED);
    connection.connection.closeSilently();
  }

  private void releaseSlot(PeerConnection connection) {
    if (connection.releaseUnauthenticatedSlot()) {
      unauthenticated.release(connection.ip);
    }
  }

  /** Runs one deadline sweep now, on the caller's thread (tests with an injected clock). */
  void sweepNow() {
    deadlines.sweep(byConnection.values());
  }

  private void sweepSafely() {
    try {
      sweepNow();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Tandem transport " + local.value() + ": connection deadline sweep failed", e);
    }
  }

  // ---- probing members -------------------------------------------------------------------------------------------

  /**
   * Runs a handshake with {@code member} on a short-lived connection of its own (see {@link MemberProbe}), so that
   * membership can admit only members that hold the secret. A refusal is counted under {@link #refusedMembers()}.
   */
  @Override
  public CompletableFuture<ProbeOutcome> probe(Member member) {
    CompletableFuture<ProbeOutcome> outcome = new CompletableFuture<>();
    try {
      probes.execute(() -> {
        ProbeOutcome result;
        try {
          result = memberProbe.probe(member);
        } catch (RuntimeException e) {
          result = ProbeOutcome.unreachable("probe failed: " + e);
        }
        if (result.status() == ProbeOutcome.Status.REFUSED) {
          refusedMembers.put(member.id(), result.detail());
        } else if (result.status() == ProbeOutcome.Status.AUTHENTICATED) {
          refusedMembers.remove(member.id());
        }
        outcome.complete(result);
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      outcome.complete(ProbeOutcome.unreachable("transport of " + local.value() + " is closed"));
    }
    return outcome;
  }

  /** Members whose last probe found they could not prove the secret, with why; never chosen as buddy. */
  public Map<NodeId, String> refusedMembers() {
    return Map.copyOf(refusedMembers);
  }

  // ---- figures and shutdown ------------------------------------------------------------------------------------

  public TransportStats stats() {
    return new TransportStats(counters.accepted.sum(), counters.dialed.sum(), refusals.failedAuthentications(),
        refusals.count(RefusalCause.REFUSED_FRAME), refusals.count(RefusalCause.CORRUPT_FRAMING), counters.backPressure.sum(),
        counters.sent.sum(), counters.timedOut.sum(), counters.served.sum(), refusals.snapshot(), unauthenticated.count(),
        refusedMembers.size(), counters.framesWritten.sum(), counters.writes.sum(), counters.callerWrites.sum(),
        counters.rangeAcks.sum(), counters.acksForNothingSent.sum());
  }

  /** How many times a peer's connection closed and its host refused a new one at once (each reported as gone). */
  public long refusedRedials() {
    return counters.refusedRedials.sum();
  }

  /**
   * Looks at every connection with {@code peer} (the one each side dialed): called on view changes only, so a scan
   * costs nothing on the request path, where a read only stores its time.
   */
  @Override
  public boolean heardFromWithin(NodeId peer, Duration within) {
    long now = nanoClock.getAsLong();
    for (PeerConnection connection : byConnection.values()) {
      long heard = connection.lastFrameAt();
      if (heard != 0 && peer.equals(connection.peer()) && connection.state() == PeerConnection.State.READY
          && now - heard <= within.toNanos()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The protocol version spoken with {@code peer} on its ready connection (the highest both speak), or empty when
   * none is ready.
   */
  public OptionalInt protocolVersion(NodeId peer) {
    PeerConnection connection = ready.get(peer);
    return connection == null ? OptionalInt.empty() : OptionalInt.of(connection.protocolVersion());
  }

  /** The protocol versions this node offers in its hello. */
  public ProtocolVersions spokenVersions() {
    return config.protocolVersions();
  }

  /** The version spoken on each ready connection, by peer (see {@link #protocolVersion(NodeId)}). */
  public Map<NodeId, Integer> protocolVersions() {
    Map<NodeId, Integer> spoken = new java.util.TreeMap<>();
    ready.forEach((peer, connection) -> spoken.put(peer, connection.protocolVersion()));
    return spoken;
  }

  /** Whether an authenticated connection to {@code peer} is ready for requests. */
  boolean connectedTo(NodeId peer) {
    return ready.containsKey(peer);
  }

  /** Outbound bytes queued for {@code peer} and not yet written to its socket. */
  public long queuedBytes(NodeId peer) {
    PeerConnection connection = ready.get(peer);
    return connection == null ? 0 : connection.outbound.queuedBytes();
  }

  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (NodeId peer : List.copyOf(addresses.keySet())) {
      failWaiters(peer, "transport closed");
    }
    for (PeerConnection connection : List.copyOf(byConnection.values())) {
      closed(connection);
    }
    try {
      if (grizzly != null) {
        grizzly.shutdownNow();
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "Grizzly transport of " + local.value() + " did not shut down cleanly", e);
    }
    timer.shutdownNow();
    probes.shutdownNow();
    redialChecks.shutdownNow();
  }

}
