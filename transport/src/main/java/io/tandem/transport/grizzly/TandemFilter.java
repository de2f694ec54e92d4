package io.tandem.transport.grizzly;

import io.tandem.core.wire.CorruptFrameException;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.WireException;
import java.util.function.LongSupplier;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * The transport's end of Grizzly's filter chain: admits accepted connections within the unauthenticated-connection
 * limits, opens the handshake of the connections this node dialed, cuts frames with core's {@code FrameDecoder} and
 * hands each to the handshake or to {@link InboundFrames}, and reports closes. A bad frame is answered and the
 * connection goes on; lost framing closes it.
 *
 * <p>Implementation notes: Grizzly's same-thread strategy calls every method on the connection's selector thread, so
 * a connection's frames are decoded and handled one at a time, which gives the contract's per-sender order and no
 * concurrent handling. {@code inbound} is set once by {@link #serve}, before any connection can read (volatile).
 */
final class TandemFilter extends BaseFilter {
  private final GrizzlyTransportConfig config;
  private final ConnectionTable connections;
  private final ConnectionLifecycle lifecycle;
  private final HandshakeProtocol handshake;
  private final Dialer dialer;
  private final Refusals refusals;
  private final UnauthenticatedConnections unauthenticated;
  private final TransportCounters counters;
  private final RunState run;
  private final LongSupplier nanoClock;
  private volatile InboundFrames inbound;

  TandemFilter(GrizzlyTransportConfig config, ConnectionTable connections, ConnectionLifecycle lifecycle,
      HandshakeProtocol handshake, Dialer dialer, Refusals refusals, UnauthenticatedConnections unauthenticated,
      TransportCounters counters, RunState run, LongSupplier nanoClock) {
    this.config = config;
    this.connections = connections;
    this.lifecycle = lifecycle;
    this.handshake = handshake;
    this.dialer = dialer;
    this.refusals = refusals;
    this.unauthenticated = unauthenticated;
    this.counters = counters;
    this.run = run;
    this.nanoClock = nanoClock;
  }

  void serve(InboundFrames frames) {
    this.inbound = frames;
  }

  @Override
  public NextAction handleAccept(FilterChainContext ctx) {
    counters.accepted.increment();
    Connection<?> connection = ctx.getConnection();
    String ip = Refusals.ip(connection.getPeerAddress());
    if (run.closed() || !unauthenticated.admit(ip)) {
      refusals.refuse(RefusalCause.TOO_MANY_UNAUTHENTICATED, connection.getPeerAddress(), "Refused a connection from " + ip
          + ": " + unauthenticated.count() + " connections are already in their handshake (limits: "
          + config.maxUnauthenticatedConnections() + " in total, " + config.maxUnauthenticatedPerAddress() + " per address)");
      connection.closeSilently();
      return ctx.getStopAction();
    }
    connections.accepted(connection);
    return ctx.getInvokeAction();
  }

  @Override
  public NextAction handleConnect(FilterChainContext ctx) {
    PeerConnection dialed = dialer.connected(ctx.getConnection());
    if (dialed == null) {
      return ctx.getStopAction();
    }
    handshake.hello(dialed);
    return ctx.getInvokeAction();
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) {
    Buffer input = ctx.getMessage();
    PeerConnection connection = connections.get(ctx.getConnection());
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
          lifecycle.refuse(connection, RefusalCause.CORRUPT_FRAMING, "lost the framing: " + e.getMessage());
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
    PeerConnection connection = connections.get(ctx.getConnection());
    if (connection != null) {
      lifecycle.closed(connection);
    }
    return ctx.getInvokeAction();
  }
}
