package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

/**
 * Every open connection, accepted or dialed, authenticated or not, by its Grizzly connection: what a read or a close
 * is dispatched to, and what the deadline sweep walks. Which peer a connection serves is its {@link Peer}'s business.
 *
 * <p>Implementation notes: {@code byConnection} is a concurrent map; a connection's selector thread adds it (on
 * accept or connect), and whichever thread handles its close removes it.
 */
final class ConnectionTable {
  private final GrizzlyTransportConfig config;
  private final PeerAuthenticator authenticator;
  private final TransportCounters counters;
  private final LongSupplier nanoClock;
  private final Map<Connection<?>, PeerConnection> byConnection = new ConcurrentHashMap<>();

  ConnectionTable(GrizzlyTransportConfig config, PeerAuthenticator authenticator, TransportCounters counters,
      LongSupplier nanoClock) {
    this.config = config;
    this.authenticator = authenticator;
    this.counters = counters;
    this.nanoClock = nanoClock;
  }

  /** An accepted connection, holding a slot of the unauthenticated-connection limits until it authenticates. */
  PeerConnection accepted(Connection<?> connection) {
    return add(new PeerConnection(connection, outbound(connection), false, null, authenticator.newNonce(),
        nanoClock.getAsLong(), true));
  }

  /** A connection this node dialed to {@code expected}. */
  PeerConnection dialed(Connection<?> connection, NodeId expected) {
    return add(new PeerConnection(connection, outbound(connection), true, expected, authenticator.newNonce(),
        nanoClock.getAsLong(), false));
  }

  private PeerConnection add(PeerConnection connection) {
    byConnection.put(connection.connection, connection);
    return connection;
  }

  private OutboundQueue outbound(Connection<?> connection) {
    return new OutboundQueue(new SelectorThreadSink(connection, (TCPNIOTransport) connection.getTransport()),
        counters.framesWritten, counters.writes, counters.callerWrites, config.writeLinger(), System::nanoTime);
  }

  /** The connection, or null if it is not (or no longer) open. */
  PeerConnection get(Connection<?> connection) {
    return byConnection.get(connection);
  }

  void remove(PeerConnection connection) {
    byConnection.remove(connection.connection);
  }

  /** A live view, for the sweep. */
  Collection<PeerConnection> all() {
    return byConnection.values();
  }

  List<PeerConnection> snapshot() {
    return List.copyOf(byConnection.values());
  }
}
