package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.FrameDecoder;
import io.tandem.core.wire.Message;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.glassfish.grizzly.Connection;

/**
 * One TCP connection to one peer, from the first byte to close: the handshake state, the frame decoder, the
 * requests waiting for a reply, and the bytes queued for writing.
 *
 * <p>Implementation notes: {@code state}, {@code peer} and the nonces are written during the handshake by the
 * connection's read thread and read elsewhere only after the state is READY (volatile publish). The decoder is
 * used only by the read thread. {@code pending} is concurrent: writers add, the read thread or the timer removes.
 * Sends take this object's lock so correlation ids reach the socket in order.
 */
final class PeerConnection {
  enum State {
    /** Acceptor: waiting for the dialer's hello. */
    AWAITING_HELLO,
    /** Dialer: hello sent, waiting for the acceptor's hello and proof. */
    AWAITING_CHALLENGE,
    /** Acceptor: challenge answered, waiting for the dialer's proof. */
    AWAITING_PROOF,
    READY,
    CLOSED
  }

  final Connection<?> connection;
  final boolean dialer;
  final Blob localNonce;
  final FrameDecoder decoder;
  final Map<Long, CompletableFuture<Message>> pending = new ConcurrentHashMap<>();
  final AtomicLong queuedBytes = new AtomicLong();
  private final AtomicLong correlation = new AtomicLong();
  private volatile State state;
  private volatile NodeId peer;
  private volatile Blob peerNonce;

  PeerConnection(Connection<?> connection, boolean dialer, NodeId expectedPeer, Blob localNonce, int maxFrameSize) {
    this.connection = connection;
    this.dialer = dialer;
    this.peer = expectedPeer;
    this.localNonce = localNonce;
    this.decoder = new FrameDecoder(maxFrameSize);
    this.state = dialer ? State.AWAITING_CHALLENGE : State.AWAITING_HELLO;
  }

  State state() {
    return state;
  }

  void state(State next) {
    state = next;
  }

  NodeId peer() {
    return peer;
  }

  void peer(NodeId id, Blob nonce) {
    peer = id;
    peerNonce = nonce;
  }

  Blob peerNonce() {
    return peerNonce;
  }

  long nextCorrelationId() {
    return correlation.incrementAndGet();
  }

  String describe() {
    return (peer == null ? "unauthenticated peer" : "peer " + peer.value()) + " at " + connection.getPeerAddress();
  }
}
