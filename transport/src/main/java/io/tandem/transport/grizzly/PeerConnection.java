package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.FrameDecoder;
import io.tandem.core.wire.ProtocolVersions;
import java.util.concurrent.atomic.AtomicLong;
import org.glassfish.grizzly.Connection;

/**
 * One TCP connection to one peer, from the first byte to close: the handshake state, the frame decoder, the
 * requests waiting for a reply, and the bytes queued for writing.
 *
 * <p>Implementation notes: {@code state}, {@code peer}, the nonces, the peer's versions and the version spoken are written during the handshake by the
 * connection's read thread and read elsewhere only after the state is READY (volatile publish). The decoder is
 * used only by the read thread, and so is {@code replies}. {@code pending} and {@code outbound} are lock-free and
 * say who owns what in their own notes. Sends take no lock (see {@code RequestSender#send}). {@code frameStartedAt} is written by the read thread
 * and read by the transport's deadline sweep; {@code unauthenticatedSlot} is released once, by whichever of
 * authentication or close comes first.
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
  /** Requests sent on this connection and not yet answered. */
  final PendingReplies pending = new PendingReplies();
  /** Frames waiting for the connection's I/O thread to write them. */
  final OutboundQueue outbound;
  /** Acks of the read in progress; read thread only. */
  final ReplyBatch replies;
  private final AtomicLong correlation = new AtomicLong();
  /** When the connection opened, on the transport's clock; the handshake deadline counts from here. */
  final long openedAt;
  /** The source IP, for per-address limits and log keys. */
  final String ip;
  private final java.util.concurrent.atomic.AtomicBoolean unauthenticatedSlot;
  /** When the frame now half read started, or 0 between frames. */
  private volatile long frameStartedAt;
  /** When a read last completed a frame, or 0 before the first; written by the read thread, read by anyone. */
  private volatile long lastFrameAt;
  private volatile State state;
  private volatile NodeId peer;
  private volatile Blob peerNonce;
  /** The range the peer's hello named; null until its hello is read. */
  private volatile ProtocolVersions peerVersions;
  /** The version both ends speak on this connection (the highest they share); 0 until the handshake settles it. */
  private volatile int protocolVersion;

  /**
   * @param holdsUnauthenticatedSlot whether this connection took a slot of the unauthenticated-connection limits
   *     (accepted connections do; this node's own dials do not)
   */
  PeerConnection(Connection<?> connection, OutboundQueue outbound, boolean dialer, NodeId expectedPeer, Blob localNonce,
      long openedAt, boolean holdsUnauthenticatedSlot) {
    this.connection = connection;
    this.outbound = outbound;
    this.replies = new ReplyBatch(outbound, this::protocolVersion);
    this.dialer = dialer;
    this.peer = expectedPeer;
    this.localNonce = localNonce;
    // Until the peer proves the secret it may send nothing larger than a handshake; raised once READY.
    this.decoder = new FrameDecoder(GrizzlyTransportConfig.HANDSHAKE_FRAME_LIMIT);
    this.state = dialer ? State.AWAITING_CHALLENGE : State.AWAITING_HELLO;
    this.openedAt = openedAt;
    this.ip = Refusals.ip(connection.getPeerAddress());
    this.unauthenticatedSlot = new java.util.concurrent.atomic.AtomicBoolean(holdsUnauthenticatedSlot);
  }

  /** True exactly once, for a connection that held an unauthenticated slot: the caller gives it back. */
  boolean releaseUnauthenticatedSlot() {
    return unauthenticatedSlot.compareAndSet(true, false);
  }

  /**
   * Read thread: records, after each read, whether a frame is left half read and since when. A read that completed
   * a frame and left another half read started that one during this read.
   */
  void afterRead(long now, boolean completedAFrame) {
    if (completedAFrame) {
      lastFrameAt = now == 0 ? 1 : now;
    }
    if (!decoder.inFrame()) {
      frameStartedAt = 0;
    } else if (completedAFrame || frameStartedAt == 0) {
      frameStartedAt = now == 0 ? 1 : now;
    }
  }

  long frameStartedAt() {
    return frameStartedAt;
  }

  /** When a read last completed a frame on the transport's clock, or 0 if none did yet. */
  long lastFrameAt() {
    return lastFrameAt;
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

  ProtocolVersions peerVersions() {
    return peerVersions;
  }

  void peerVersions(ProtocolVersions versions) {
    peerVersions = versions;
  }

  /** The version spoken on this connection, set by the handshake before the connection is READY; 0 before. */
  int protocolVersion() {
    return protocolVersion;
  }

  void protocolVersion(int version) {
    protocolVersion = version;
  }

  long nextCorrelationId() {
    return correlation.incrementAndGet();
  }

  /** The highest correlation id this side has used: a reply naming a higher one answers nothing ever sent. */
  long lastCorrelationId() {
    return correlation.get();
  }

  String describe() {
    return (peer == null ? "unauthenticated peer" : "peer " + peer.value()) + " at " + connection.getPeerAddress();
  }
}
