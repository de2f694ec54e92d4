package io.tandem.transport.grizzly;

import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.transport.membership.MemberProber;
import io.tandem.transport.membership.ProbeOutcome;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

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
 * <p>This class only assembles the pieces, each with one job and its own implementation notes: {@link PeerTable}
 * and one {@link Peer} per member (its state machine, connection, dial, waiting requests and loss), {@link Dialer},
 * {@link TandemFilter} (accept, connect, read, close) on the {@link NioStack}, {@link ConnectionLifecycle} (handshake outcomes, ready,
 * closed), {@link RequestSender}, {@link LossDetector} (fast death detection), {@link MemberProbes}, {@link
 * ConnectionTable} and {@link TransportThreads}.
 *
 * <p>Implementation notes: {@code grizzly} and {@code boundAddress} are written once by {@link #start} (synchronized,
 * volatile), before any connection can read; {@code hooks} is a test's (volatile); the rest is final. No lock is held while a future is
 * completed, a frame written or a connection dialed: a caller may hold a session lock that a future's callback takes.
 */
public final class GrizzlyTransport implements Transport, MemberProber {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final GrizzlyTransportConfig config;
  private final NodeId local;
  private final LongSupplier nanoClock;
  private final Refusals refusals;
  private final UnauthenticatedConnections unauthenticated;
  private final HandshakeProtocol handshake;
  private final TransportCounters counters = new TransportCounters();
  private final RunState run = new RunState();
  private final TransportThreads threads;
  private final MemberProbes probes;
  private final PeerTable peers;
  private final ConnectionTable connections;
  private final LossDetector losses;
  private final Dialer dialer;
  private final RequestSender sender;
  private final ConnectionLifecycle lifecycle;
  private final TandemFilter filter;
  private final DeadlineSweep deadlines;
  private volatile TCPNIOTransport grizzly;
  private volatile InetSocketAddress boundAddress;
  private volatile TransportHooks hooks = TransportHooks.NONE;

  public GrizzlyTransport(GrizzlyTransportConfig config) {
    this(config, new RateLimitedLog(LOG), System::nanoTime);
  }

  /** For tests: the log refusals go to, and the clock deadlines are measured on. */
  GrizzlyTransport(GrizzlyTransportConfig config, RateLimitedLog log, LongSupplier nanoClock) {
    this.config = config;
    this.local = config.localNode();
    this.nanoClock = nanoClock;
    this.refusals = new Refusals(log);
    this.unauthenticated = new UnauthenticatedConnections(config.maxUnauthenticatedConnections(), config.maxUnauthenticatedPerAddress());
    PeerAuthenticator authenticator = new PeerAuthenticator(config.sharedSecret(), config.clusterName());
    this.threads = new TransportThreads(local);
    this.probes = new MemberProbes(local, new MemberProbe(config, authenticator), threads);
    this.peers = new PeerTable(config, log, threads);
    this.connections = new ConnectionTable(config, authenticator, counters, nanoClock);
    this.losses = new LossDetector(config, threads, counters, run);
    this.dialer = new Dialer(config, peers, connections, threads, counters, losses, run, () -> grizzly);
    this.sender = new RequestSender(config, peers, dialer, threads, counters, run, nanoClock, () -> hooks);
    this.lifecycle = new ConnectionLifecycle(config, peers, connections, sender, dialer, losses, refusals,
        unauthenticated, run, () -> hooks);
    this.handshake = new HandshakeProtocol(config, authenticator, lifecycle);
    this.filter = new TandemFilter(config, connections, lifecycle, handshake, dialer, refusals, unauthenticated,
        counters, run, nanoClock);
    this.deadlines = new DeadlineSweep(config, nanoClock, lifecycle, counters);
  }

  void hooks(TransportHooks testHooks) {
    this.hooks = testHooks;
  }

  @Override
  public void watchPeers(PeerWatcher peerWatcher) {
    losses.watch(peerWatcher);
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
    filter.serve(new InboundFrames(requestHandler, handshake, refusals, counters));
    grizzly = NioStack.build(config, local, filter);
    run.started();
    grizzly.start();
    threads.every(() -> deadlines.sweepLogged(connections.all()), deadlines.periodMillis());
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
    peers.apply(view).forEach(dialer::dial);
  }

  @Override
  public boolean refusesConnections(Member member) {
    return peers.address(member).map(address -> RedialCheck.dial(address, config.connectTimeout()) == RedialCheck.Result.REFUSED)
        .orElse(false);
  }

  /** The dial on a redial-check thread ({@code tandem-transport-check-<node>-<n>}), not the caller's. */
  @Override
  public CompletableFuture<Boolean> refusalOf(Member member) {
    CompletableFuture<Boolean> verdict = new CompletableFuture<>();
    try {
      threads.check(() -> {
        try {
          verdict.complete(refusesConnections(member));
        } catch (RuntimeException e) {
          verdict.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException closed) {
      verdict.complete(false);
    }
    return verdict;
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return sender.request(peer, message, true, config.requestTimeout());
  }

  /** The reply's deadline is {@code timeout} from now instead of {@code requestTimeout}; enforced by the same sweep. */
  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return sender.request(peer, message, true, timeout);
  }

  /** Leaves the write to the connection's I/O thread, which writes this frame together with the ones after it. */
  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return sender.request(peer, message, false, config.requestTimeout());
  }

  /** {@link #requestBatched(NodeId, Message)} with the reply's deadline {@code timeout} from now. */
  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message, Duration timeout) {
    return sender.request(peer, message, false, timeout);
  }

  /** Runs one deadline sweep now, on the caller's thread (tests with an injected clock). */
  void sweepNow() {
    deadlines.sweep(connections.all());
  }

  /**
   * Runs a handshake with {@code member} on a short-lived connection of its own (see {@link MemberProbe}), so that
   * membership can admit only members that hold the secret. A refusal is counted under {@link #refusedMembers()}.
   */
  @Override
  public CompletableFuture<ProbeOutcome> probe(Member member) {
    return probes.probe(member);
  }

  /** Members whose last probe found they could not prove the secret, with why; never chosen as buddy. */
  public Map<NodeId, String> refusedMembers() {
    return probes.refused();
  }

  public TransportStats stats() {
    return counters.stats(refusals, unauthenticated.count(), probes.refusedCount());
  }

  /** How many times a peer's connection closed and its host refused a new one at once (each reported as gone). */
  public long refusedRedials() {
    return counters.refusedRedials.sum();
  }

  /**
   * Looks at every authenticated connection with {@code peer} (the one each side dialed): called on view changes
   * only, so a scan costs nothing on the request path, where a read only stores its time.
   */
  @Override
  public boolean heardFromWithin(NodeId peer, Duration within) {
    Peer known = peers.get(peer);
    return known != null && known.heardWithin(nanoClock.getAsLong(), within.toNanos());
  }

  /**
   * The protocol version spoken with {@code peer} on its ready connection (the highest both speak), or empty when
   * none is ready.
   */
  public OptionalInt protocolVersion(NodeId peer) {
    return peers.protocolVersion(peer);
  }

  /** The protocol versions this node offers in its hello. */
  public ProtocolVersions spokenVersions() {
    return config.protocolVersions();
  }

  /** The version spoken on each ready connection, by peer (see {@link #protocolVersion(NodeId)}). */
  public Map<NodeId, Integer> protocolVersions() {
    return peers.protocolVersions();
  }

  /** Whether an authenticated connection to {@code peer} is ready for requests. */
  boolean connectedTo(NodeId peer) {
    return peers.ready(peer) != null;
  }

  /** Outbound bytes queued for {@code peer} and not yet written to its socket. */
  public long queuedBytes(NodeId peer) {
    PeerConnection connection = peers.ready(peer);
    return connection == null ? 0 : connection.outbound.queuedBytes();
  }

  /** Fails what waits, closes every connection (failing what was sent on it), then stops Grizzly and the threads. */
  @Override
  public void close() {
    if (!run.close()) {
      return;
    }
    for (Peer peer : peers.all()) {
      WaitingRequests.failAll(peer.takeWaiting(), peer.id, "transport closed");
    }
    for (PeerConnection connection : connections.snapshot()) {
      lifecycle.closed(connection);
    }
    try {
      TCPNIOTransport started = grizzly;
      if (started != null) {
        started.shutdownNow();
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "Grizzly transport of " + local.value() + " did not shut down cleanly", e);
    }
    threads.shutdownNow();
  }
}
