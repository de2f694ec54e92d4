package io.tandem.transport.grizzly;

import io.tandem.core.spi.BackPressureException;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.transport.grizzly.WaitingRequests.Waiting;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends requests: on the peer's ready connection, or, while it has none, into the peer's queue of requests waiting
 * for one (dialing it if this node is the one that dials), drained in order once a connection is ready. A request
 * still queued after the connect timeout fails; one already sent keeps its own deadline ({@link PendingReplies}).
 *
 * <p>Implementation notes: runs on request threads, and on whichever thread made a connection ready (the drain). Only
 * the decision to queue takes a lock, the peer's; encoding, writing and completing a future happen outside it (a
 * caller may hold a session lock that a future's callback also takes). The common case takes no lock at all: a ready
 * connection and no queue. A queue is created only while the peer has no ready connection, and removed only after
 * it was drained onto the ready one; reading the connection before the queue therefore never lets a request overtake
 * a queued one. Queued requests leave in order because one thread drains a peer's queue and later requests join it
 * until it is empty.
 */
final class RequestSender {
  private final NodeId local;
  private final GrizzlyTransportConfig config;
  private final PeerTable peers;
  private final Dialer dialer;
  private final TransportThreads threads;
  private final TransportCounters counters;
  private final RunState run;
  private final LongSupplier nanoClock;
  private final Supplier<TransportHooks> hooks;

  RequestSender(GrizzlyTransportConfig config, PeerTable peers, Dialer dialer, TransportThreads threads,
      TransportCounters counters, RunState run, LongSupplier nanoClock, Supplier<TransportHooks> hooks) {
    this.local = config.localNode();
    this.config = config;
    this.peers = peers;
    this.dialer = dialer;
    this.threads = threads;
    this.counters = counters;
    this.run = run;
    this.nanoClock = nanoClock;
    this.hooks = hooks;
  }

  /**
   * @param writeNow the caller writes the frame itself when no other write is under way (see {@link #send})
   * @param timeout how long the reply may take once the request is sent
   */
  CompletableFuture<Message> request(NodeId to, Message message, boolean writeNow, Duration timeout) {
    CompletableFuture<Message> reply = new CompletableFuture<>();
    if (!run.running()) {
      reply.completeExceptionally(new PeerUnreachableException(to, "transport of " + local.value() + " is not running"));
      return reply;
    }
    Peer peer = peers.get(to);
    if (peer == null) {
      reply.completeExceptionally(new PeerUnreachableException(to, "not a member of the current view"));
      return reply;
    }
    PeerConnection fast = peer.readyWithoutLock();
    if (fast != null && !peer.queuedWithoutLock()) {
      send(fast, message, reply, writeNow, timeout);
      return reply;
    }
    Peer.Admission admission = peer.admit(new Waiting(message, reply, timeout));
    if (!admission.queued() && admission.connection() != null) {
      send(admission.connection(), message, reply, writeNow, timeout);
    } else if (!admission.queued()) {
      reply.completeExceptionally(new PeerUnreachableException(to, admission.refused()
          ? "its connection closed and its host refused a new one" : "not a member of the current view"));
    } else if (admission.toDrain() != null) {
      drain(peer, admission.toDrain(), admission.connection());
    } else if (run.closed()) {
      failClosing(peer, reply); // queued after close() failed the queue: nothing else would
    } else {
      if (admission.connection() == null && local.compareTo(to) < 0) {
        dialer.dial(peer);
      }
      try {
        threads.schedule(() -> expireWaiting(peer, reply), config.connectTimeout().toMillis());
      } catch (RejectedExecutionException e) {
        failClosing(peer, reply);
      }
    }
    return reply;
  }

  /**
   * A request that joined a peer's queue as the transport closed: close() sets the closed flag before it fails every
   * queue, so either it took the request along or the check after queueing sees the flag and this removes and fails
   * it; its connect timeout may never run, the timer being shut down. Only the one that removes it completes it.
   */
  private void failClosing(Peer peer, CompletableFuture<Message> reply) {
    if (peer.expire(reply)) {
      reply.completeExceptionally(new PeerUnreachableException(peer.id, "transport closed"));
    }
  }

  /** Fails a request still queued for a connection after the connect timeout; one already sent is left alone. */
  private void expireWaiting(Peer peer, CompletableFuture<Message> reply) {
    if (peer.expire(reply)) {
      reply.completeExceptionally(new PeerUnreachableException(peer.id, "no connection within " + config.connectTimeout().toMillis() + "ms"));
    }
  }

  /** Sends a peer's queued requests in order, outside the lock, until the queue stays empty; then retires it. */
  void drain(Peer peer, WaitingRequests queue, PeerConnection connection) {
    while (true) {
      List<Waiting> batch = peer.nextToDrain(queue);
      if (batch.isEmpty()) {
        return;
      }
      for (Waiting w : batch) {
        if (!w.reply().isDone()) {
          send(connection, w.message(), w.reply(), false, w.timeout());
        }
      }
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
   * <p>Closing races sending without a lock between them: {@link ConnectionLifecycle#closed} marks the connection
   * CLOSED and then fails what is pending; a send registers its pending reply and then checks for CLOSED. Whichever
   * runs second sees the other's step, so a send racing a close fails at once instead of waiting out its timeout; only
   * one of them removes the pending entry, and that one completes the reply.
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
    hooks.get().beforeRegisteringReply(connection);
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
}
