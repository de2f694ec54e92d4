package io.tandem.transport.grizzly;

import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.TransportException;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.UnknownMessageTypeException;
import io.tandem.core.wire.UnsupportedProtocolVersionException;
import io.tandem.core.wire.WireException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;

/**
 * What a connection's read thread does with each frame it cut: the handshake's frames go to the handshake; a request
 * goes to the node's handler and its answer back to the peer (an ack that says only "applied as sent" joins the read's
 * {@link ReplyBatch}); a reply completes the request it answers, or every request of an {@link Message.AckRange}.
 *
 * <p>Implementation notes: called only on the connection's read thread, one frame at a time, which is what gives
 * the handler its per-sender order. A handler's answer that completes later, on another thread, is queued on its own;
 * nothing here blocks or takes a lock.
 */
final class InboundFrames {
  private static final Logger LOG = System.getLogger(GrizzlyTransport.class.getName());

  private final RequestHandler handler;
  private final HandshakeProtocol handshake;
  private final Refusals refusals;
  private final TransportCounters counters;

  InboundFrames(RequestHandler handler, HandshakeProtocol handshake, Refusals refusals, TransportCounters counters) {
    this.handler = handler;
    this.handshake = handshake;
    this.refusals = refusals;
    this.counters = counters;
  }

  /** A frame an authenticated peer sent that could not be read: answered with a Nack, the connection goes on. */
  void refuseFrame(PeerConnection connection, WireException e) {
    refusals.refuse(RefusalCause.REFUSED_FRAME, connection.connection.getPeerAddress(),
        "Refused a frame from " + connection.describe() + ": " + e.getMessage());
    long id = e.correlationId();
    if (id <= 0) {
      return;
    }
    if (connection.pending.fail(id, new TransportException(connection.peer(), "peer sent an unreadable reply: " + e.getMessage(), e))) {
      return;
    }
    boolean unsupported = e instanceof UnknownMessageTypeException || e instanceof UnsupportedProtocolVersionException;
    respond(connection, id, unsupported ? new Message.Nack(Message.Nack.Reason.UNSUPPORTED, 0, 0, e.getMessage())
        : Message.Nack.refused(Message.Nack.Refusal.MALFORMED, e.getMessage()));
  }

  void onEnvelope(PeerConnection connection, Envelope envelope) {
    if (connection.state() != PeerConnection.State.READY) {
      handshake.onEnvelope(connection, envelope);
      return;
    }
    if (envelope.response()) {
      onReply(connection, envelope);
      return;
    }
    if (envelope.message() instanceof Message.Handshake || envelope.message() instanceof Message.AckRange) {
      respond(connection, envelope.correlationId(), new Message.Nack(Message.Nack.Reason.UNSUPPORTED, 0, 0,
          "a " + envelope.message().type() + " is not a request" + (envelope.message() instanceof Message.Handshake ? " (already authenticated)" : "")));
      return;
    }
    counters.served.increment();
    long id = envelope.correlationId();
    Message request = envelope.message();
    CompletableFuture<Message> handled;
    try {
      handled = handler.handle(connection.peer(), request).toCompletableFuture();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Request handler failed on a " + request.type() + " from " + connection.describe(), e);
      respond(connection, id, new Message.Nack(Message.Nack.Reason.HANDLER_FAILED, 0, 0, e.toString()));
      return;
    }
    if (handled.isDone() && !handled.isCompletedExceptionally() && handled.getNow(null) != null) {
      // Answered during this read (backup updates are): an ack that says no more than "applied as sent" joins the
      // read's range; anything else goes out on its own.
      Message reply = handled.getNow(null);
      if (Message.AckRange.isImpliedBy(request, reply)) {
        connection.replies.acknowledged(id);
      } else {
        respond(connection, id, reply);
      }
      return;
    }
    handled.whenComplete((reply, failure) -> {
      if (failure != null || reply == null) {
        respond(connection, id, new Message.Nack(Message.Nack.Reason.HANDLER_FAILED, 0, 0, String.valueOf(failure)));
      } else {
        respond(connection, id, reply);
      }
    });
  }

  /** A reply to a request of ours: one request's answer, or a range of acknowledgements. */
  private void onReply(PeerConnection connection, Envelope envelope) {
    long lastId = envelope.correlationId();
    if (lastId > connection.lastCorrelationId() || lastId <= 0) {
      // Nothing with that id was ever sent here: a confused or hostile peer. Nothing is completed by it.
      counters.acksForNothingSent.increment();
      refusals.refuse(RefusalCause.REFUSED_FRAME, connection.connection.getPeerAddress(), "Refused a " + envelope.message().type()
          + " from " + connection.describe() + ": it answers request " + lastId + ", and the last one sent was "
          + connection.lastCorrelationId());
      return;
    }
    if (envelope.message() instanceof Message.AckRange range) {
      counters.rangeAcks.increment();
      connection.pending.acknowledgeRange(connection.peer(), lastId, range.count());
    } else {
      connection.pending.answer(connection.peer(), lastId, envelope.message()); // false: timed out already
    }
  }

  /** Queues a reply of its own; a frame queued on a connection closed meanwhile is dropped with it. */
  static void respond(PeerConnection connection, long correlationId, Message reply) {
    if (connection.state() != PeerConnection.State.CLOSED) {
      connection.outbound.enqueue(MessageCodec.encode(new Envelope(correlationId, true, reply), connection.protocolVersion()));
    }
  }
}
