package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

/**
 * Opens the connections this node dials: to members whose id sorts after its own, when a view names them or a request
 * waits for them, and again after a close or a failed connect, backing off from {@link
 * GrizzlyTransportConfig#reconnectBackoffMin()} to {@link GrizzlyTransportConfig#reconnectBackoffMax()}. At most one
 * dial per peer is under way ({@link PeerDial}); a connect is matched to its dial by the address dialed.
 *
 * <p>Implementation notes: stateless apart from its collaborators (each peer's dial is its {@link PeerDial}). {@link
 * #dial} runs on any thread, and connects outside every lock: a connect that fails at once runs its failure on the
 * calling thread, which completes futures. Redials run on the timer thread; connects complete on selector threads.
 */
final class Dialer {
  private final NodeId local;
  private final GrizzlyTransportConfig config;
  private final PeerTable peers;
  private final ConnectionTable connections;
  private final TransportThreads threads;
  private final TransportCounters counters;
  private final LossDetector losses;
  private final RunState run;
  /** Grizzly, once started. */
  private final Supplier<TCPNIOTransport> grizzly;

  Dialer(GrizzlyTransportConfig config, PeerTable peers, ConnectionTable connections, TransportThreads threads,
      TransportCounters counters, LossDetector losses, RunState run, Supplier<TCPNIOTransport> grizzly) {
    this.local = config.localNode();
    this.config = config;
    this.peers = peers;
    this.connections = connections;
    this.threads = threads;
    this.counters = counters;
    this.losses = losses;
    this.run = run;
    this.grizzly = grizzly;
  }

  void dial(Peer peer) {
    if (run.closed()) {
      return;
    }
    InetSocketAddress address = peer.startDial();
    if (address == null) {
      return;
    }
    counters.dialed.increment();
    grizzly.get().connect(address, new EmptyCompletionHandler<>() {
      @Override
      public void failed(Throwable error) {
        connectFailed(peer, address, error);
      }
    });
  }

  private void connectFailed(Peer peer, InetSocketAddress address, Throwable error) {
    peer.dial.failed(address);
    long lost = peer.lostToken();
    if (lost != 0 && error instanceof ConnectException
        && String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT).contains("refused")) {
      losses.redialRefused(peer, lost, address);
    }
    WaitingRequests.failAll(peer.takeWaiting(), peer.id, "cannot connect to " + address + ": " + error.getMessage());
    redial(peer);
  }

  /** Dials {@code peer} again after its backoff, if this node is the one that dials it and it is still a member. */
  void redial(Peer peer) {
    if (run.closed() || peer.address() == null || local.compareTo(peer.id) > 0) {
      return;
    }
    Duration delay = peer.dial.nextBackoff(config.reconnectBackoffMin(), config.reconnectBackoffMax());
    try {
      threads.schedule(() -> dial(peer), delay.toMillis());
    } catch (RejectedExecutionException e) {
      // the transport closed since the check above: nothing is redialed any more
    }
  }

  /**
   * Selector thread: a connect completed. Returns the connection, in its handshake, or null (closed) when no dial
   * awaits it any more.
   */
  PeerConnection connected(Connection<?> connection) {
    SocketAddress address = (SocketAddress) connection.getPeerAddress();
    Peer peer = peers.dialing(address);
    PeerConnection dialed = peer == null ? null : connections.dialed(connection, peer.id);
    if (dialed == null || !peer.dial.connected(address, dialed)) {
      if (dialed != null) {
        connections.remove(dialed);
      }
      connection.closeSilently();
      return null;
    }
    return dialed;
  }
}
