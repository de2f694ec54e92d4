package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerWatcher;
import io.tandem.transport.grizzly.WaitingRequests.Waiting;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * Fast death detection: when the ready connection to a member closes, a {@link RedialCheck} asks at once whether its
 * host still listens, whichever end dials. A refusal is reported to the {@link PeerWatcher} only if no connection to
 * that peer became ready since the close (the loss's token, see {@link Peer#refused}); the peer is then REFUSED, and
 * requests to it fail at once instead of waiting for a connection, until it connects again or leaves the view. A
 * redial of a lost peer that is refused is the same sign, in case the check came too early.
 *
 * <p>Implementation notes: checks run on the transport's check threads; refusals and connects are reported on its
 * timer thread, one at a time and in order. {@code watcher} is set once, before start (volatile).
 */
final class LossDetector {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final NodeId local;
  private final GrizzlyTransportConfig config;
  private final TransportThreads threads;
  private final TransportCounters counters;
  private final RunState run;
  private volatile PeerWatcher watcher = PeerWatcher.NONE;

  LossDetector(GrizzlyTransportConfig config, TransportThreads threads, TransportCounters counters, RunState run) {
    this.local = config.localNode();
    this.config = config;
    this.threads = threads;
    this.counters = counters;
    this.run = run;
  }

  void watch(PeerWatcher peerWatcher) {
    this.watcher = Objects.requireNonNull(peerWatcher, "peerWatcher");
  }

  /** The ready connection to {@code peer} closed ({@code loss}); a loss with no token is not checked. */
  void lost(Peer peer, Peer.Loss loss) {
    if (loss.token() == 0) {
      return;
    }
    try {
      threads.check(() -> {
        if (RedialCheck.dial(loss.address(), config.connectTimeout()) == RedialCheck.Result.REFUSED) {
          threads.onTimer(() -> reportRefused(peer, loss.token(), loss.address()));
        }
      });
    } catch (RejectedExecutionException e) {
      // the transport is closing
    }
  }

  /** A redial of {@code peer}, lost as {@code token}, was refused. */
  void redialRefused(Peer peer, long token, InetSocketAddress address) {
    threads.onTimer(() -> reportRefused(peer, token, address));
  }

  void connected(NodeId peer) {
    threads.onTimer(() -> watcher.peerConnected(peer));
  }

  /** On the timer thread: a refusal still current (no connection became ready since the close) is reported. */
  private void reportRefused(Peer peer, long token, InetSocketAddress address) {
    if (run.closed()) {
      return;
    }
    List<Waiting> waiting = peer.refused(token);
    if (waiting == null) {
      return;
    }
    counters.refusedRedials.increment();
    WaitingRequests.failAll(waiting, peer.id, "its connection closed and " + address + " refused a new one");
    LOG.log(Level.INFO, "Tandem transport {0}: the connection to {1} closed and {2} refused a new one at once",
        local.value(), peer.id.value(), address);
    watcher.peerRefused(peer.id, "connection closed, redial to " + address + " refused");
  }
}
