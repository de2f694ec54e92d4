package io.tandem.transport.grizzly;

import io.tandem.core.config.Units;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.function.LongSupplier;

/**
 * Every deadline of the transport, enforced by one periodic sweep instead of a timer task per connection or per
 * request: a connection still in its handshake past the handshake deadline, an authenticated connection that started
 * a frame and did not finish it within the stalled-frame deadline (a half-open peer, or one writing a byte a second),
 * and requests whose reply is past the request timeout. It also writes requests still held for a reply that no read
 * brought (see {@link OutboundQueue}).
 *
 * <p>Implementation notes: stateless apart from its configuration; runs on the transport's timer thread (or a test's
 * thread through {@code GrizzlyTransport#sweepNow}). Each connection's own structures say how they take the sweep's
 * concurrent removals.
 */
final class DeadlineSweep {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  /** Closes a connection, counting and logging why. */
  interface Refuser {
    void refuse(PeerConnection connection, RefusalCause cause, String why);
  }

  private final GrizzlyTransportConfig config;
  private final LongSupplier nanoClock;
  private final Refuser refuser;
  private final TransportCounters counters;

  DeadlineSweep(GrizzlyTransportConfig config, LongSupplier nanoClock, Refuser refuser, TransportCounters counters) {
    this.config = config;
    this.nanoClock = nanoClock;
    this.refuser = refuser;
    this.counters = counters;
  }

  /**
   * Often enough that a request fails within a tenth of its timeout after it (500ms: within 50ms), and a handshake
   * or a stalled frame within a quarter of theirs; never more than 100 times a second.
   */
  long periodMillis() {
    long shortest = Math.min(Math.min(config.handshakeTimeout().toMillis(), config.stalledFrameTimeout().toMillis()) / 4,
        config.requestTimeout().toMillis() / 10);
    return Math.max(10, Math.min(1000, shortest));
  }

  /** The timer's sweep: a failure is logged, and the next sweep runs as planned. */
  void sweepLogged(Collection<PeerConnection> connections) {
    try {
      sweep(connections);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Tandem transport " + config.localNode().value() + ": connection deadline sweep failed", e);
    }
  }

  void sweep(Collection<PeerConnection> connections) {
    long now = nanoClock.getAsLong();
    for (PeerConnection connection : connections) {
      PeerConnection.State state = connection.state();
      if (state == PeerConnection.State.CLOSED) {
        continue;
      }
      if (state != PeerConnection.State.READY) {
        if (now - connection.openedAt > config.handshakeTimeout().toNanos()) {
          refuser.refuse(connection, RefusalCause.HANDSHAKE_TIMEOUT,
              "did not complete the handshake within " + Units.format(config.handshakeTimeout()));
        }
        continue;
      }
      long started = connection.frameStartedAt();
      if (started != 0 && now - started > config.stalledFrameTimeout().toNanos()) {
        refuser.refuse(connection, RefusalCause.STALLED_FRAME,
            "started a frame and did not finish it within " + Units.format(config.stalledFrameTimeout()));
        continue;
      }
      if (!connection.pending.isEmpty()) {
        counters.timedOut.add(connection.pending.expire(now, connection.peer().value()));
      }
      connection.outbound.flushHeld(); // requests held for a reply that has not come (see OutboundQueue)
    }
  }
}
