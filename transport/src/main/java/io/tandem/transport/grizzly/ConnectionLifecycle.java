package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.memory.Buffers;

/**
 * What happens to a connection between its handshake and its close: it authenticates and becomes its peer's ready
 * connection (draining the requests that waited for one), it is refused and closed with the cause counted and logged,
 * or it closes, failing what was sent on it, having the peer redialed and, if it was the ready one, its loss checked.
 * It is the handshake's and the deadline sweep's view of the transport.
 *
 * <p>Implementation notes: stateless apart from its collaborators; a connection's own state is its read thread's
 * during the handshake (see {@link PeerConnection}), its peer's is the {@link Peer}'s lock's. Called on selector
 * threads (handshake, close), the timer thread (the sweep's refusals) and the closing thread; no lock is held here
 * while a connection is closed, a frame written or a future completed.
 */
final class ConnectionLifecycle implements HandshakeProtocol.Link, DeadlineSweep.Refuser {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final NodeId local;
  private final GrizzlyTransportConfig config;
  private final PeerTable peers;
  private final ConnectionTable connections;
  private final RequestSender sender;
  private final Dialer dialer;
  private final LossDetector losses;
  private final Refusals refusals;
  private final UnauthenticatedConnections unauthenticated;
  private final RunState run;
  private final Supplier<TransportHooks> hooks;

  ConnectionLifecycle(GrizzlyTransportConfig config, PeerTable peers, ConnectionTable connections, RequestSender sender,
      Dialer dialer, LossDetector losses, Refusals refusals, UnauthenticatedConnections unauthenticated, RunState run,
      Supplier<TransportHooks> hooks) {
    this.local = config.localNode();
    this.config = config;
    this.peers = peers;
    this.connections = connections;
    this.sender = sender;
    this.dialer = dialer;
    this.losses = losses;
    this.refusals = refusals;
    this.unauthenticated = unauthenticated;
    this.run = run;
    this.hooks = hooks;
  }

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

  private void becameReady(PeerConnection connection) {
    Peer peer = peers.authenticated(connection.peer());
    Peer.Readiness readiness = peer.ready(connection);
    if (readiness.previous() != null && readiness.previous() != connection) {
      readiness.previous().connection.closeSilently();
    }
    if (readiness.toDrain() != null) {
      sender.drain(peer, readiness.toDrain(), connection);
    }
    losses.connected(peer.id);
    LOG.log(Level.DEBUG, "Tandem transport {0}: connected to {1}, speaking protocol version {2}", local.value(),
        connection.describe(), connection.protocolVersion());
  }

  /** Counts and logs (rate-limited, per source IP) why a connection is refused, and closes it. */
  @Override
  public void refuse(PeerConnection connection, RefusalCause cause, String why) {
    refusals.refuse(cause, connection.connection.getPeerAddress(), "Refused the connection from " + connection.describe() + ": it " + why);
    connection.state(PeerConnection.State.CLOSED);
    connection.connection.closeSilently();
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
    socket.write(Buffers.wrap(socket.getTransport().getMemoryManager(), answer),
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

  /** The connection closed (or the transport closes it): everything sent on it fails at once. */
  void closed(PeerConnection connection) {
    connection.state(PeerConnection.State.CLOSED);
    releaseSlot(connection);
    connections.remove(connection);
    NodeId id = connection.peer();
    Peer peer = id == null ? null : peers.get(id);
    Peer.Loss loss = peer == null ? new Peer.Loss(false, 0, null) : peer.closed(connection, run.closed());
    connection.outbound.close();
    NodeId failedPeer = id == null ? local : id;
    connection.pending.failAll(() -> new PeerUnreachableException(failedPeer, "connection closed"));
    hooks.get().afterClosed(connection);
    if (peer == null) {
      return;
    }
    if (connection.dialer && (loss.wasCurrent() || peer.readyWithoutLock() == null)) {
      dialer.redial(peer);
    }
    losses.lost(peer, loss);
  }

  /** Gives back the connection's unauthenticated slot, once: on authentication or on close, whichever comes first. */
  void releaseSlot(PeerConnection connection) {
    if (connection.releaseUnauthenticatedSlot()) {
      unauthenticated.release(connection.ip);
    }
  }
}
