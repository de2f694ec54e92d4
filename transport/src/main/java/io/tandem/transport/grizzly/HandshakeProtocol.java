package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.OversizedFrameException;
import io.tandem.core.wire.WireException;
import java.nio.ByteBuffer;

/**
 * The three-step challenge that opens every connection: the dialer's hello, the acceptor's challenge carrying its
 * proof, the dialer's proof. Each proof is an HMAC over both nonces, the cluster name and the prover's node id
 * ({@link PeerAuthenticator}), so a proof recorded on one connection is worthless on another.
 *
 * <p>Until it ends the peer has proven nothing, so it may send nothing but the next handshake step, in frames no
 * larger than {@link GrizzlyTransportConfig#HANDSHAKE_FRAME_LIMIT}; anything else closes the connection with the
 * cause counted. Implementation notes: stateless but for its collaborators; called on a connection's read thread,
 * which owns that connection's handshake state.
 */
final class HandshakeProtocol {
  /** What the handshake needs from the transport. */
  interface Link {
    void write(PeerConnection connection, ByteBuffer frame);

    /** The peer proved the secret; the connection may carry requests. */
    void authenticated(PeerConnection connection);

    /** Counts and logs the refusal, and closes the connection. */
    void refuse(PeerConnection connection, RefusalCause cause, String why);
  }

  private final GrizzlyTransportConfig config;
  private final NodeId local;
  private final PeerAuthenticator authenticator;
  private final Link link;

  HandshakeProtocol(GrizzlyTransportConfig config, PeerAuthenticator authenticator, Link link) {
    this.config = config;
    this.local = config.localNode();
    this.authenticator = authenticator;
    this.link = link;
  }

  /** Dialer: opens with the hello. */
  void hello(PeerConnection connection) {
    send(connection, Blob.EMPTY);
  }

  /** A frame that could not be read before the peer authenticated. */
  void badFrame(PeerConnection connection, WireException e) {
    if (e instanceof OversizedFrameException) {
      link.refuse(connection, RefusalCause.OVERSIZED_BEFORE_AUTHENTICATION, "declared a frame larger than a handshake before authenticating: " + e.getMessage());
    } else {
      link.refuse(connection, RefusalCause.PROTOCOL_VIOLATION, "sent a bad frame before authenticating: " + e.getMessage());
    }
  }

  /** A frame read before the peer authenticated. */
  void onEnvelope(PeerConnection connection, Envelope envelope) {
    if (!(envelope.message() instanceof Message.Handshake hello) || envelope.response()) {
      link.refuse(connection, RefusalCause.PROTOCOL_VIOLATION, "sent a " + envelope.message().type() + " before authenticating");
      return;
    }
    if (hello.protocolVersion() != MessageCodec.PROTOCOL_VERSION) {
      link.refuse(connection, RefusalCause.PROTOCOL_VERSION,
          "speaks protocol version " + hello.protocolVersion() + ", this node speaks " + MessageCodec.PROTOCOL_VERSION);
      return;
    }
    if (!hello.clusterName().equals(config.clusterName())) {
      link.refuse(connection, RefusalCause.WRONG_CLUSTER, "belongs to cluster '" + hello.clusterName() + "', not '" + config.clusterName() + "'");
      return;
    }
    switch (connection.state()) {
      case AWAITING_HELLO -> {
        if (!hello.proof().equals(Blob.EMPTY)) {
          link.refuse(connection, RefusalCause.PROTOCOL_VIOLATION, "opened with a proof instead of a hello (a replayed handshake?)");
          return;
        }
        connection.peer(hello.node(), hello.nonce());
        connection.state(PeerConnection.State.AWAITING_PROOF);
        send(connection, authenticator.proof(hello.nonce(), connection.localNonce, local));
      }
      case AWAITING_CHALLENGE -> {
        if (!hello.node().equals(connection.peer())) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "answered as " + hello.node().value() + " where " + connection.peer().value() + " was dialed");
          return;
        }
        if (!authenticator.verify(hello.proof(), connection.localNonce, hello.nonce(), hello.node())) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "could not prove the cluster's shared secret");
          return;
        }
        connection.peer(hello.node(), hello.nonce());
        send(connection, authenticator.proof(hello.nonce(), connection.localNonce, local));
        link.authenticated(connection);
      }
      case AWAITING_PROOF -> {
        if (!hello.node().equals(connection.peer()) || !hello.nonce().equals(connection.peerNonce())
            || !authenticator.verify(hello.proof(), connection.localNonce, hello.nonce(), hello.node())) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "could not prove the cluster's shared secret");
          return;
        }
        link.authenticated(connection);
      }
      default -> link.refuse(connection, RefusalCause.PROTOCOL_VIOLATION, "sent a handshake in state " + connection.state());
    }
  }

  private void send(PeerConnection connection, Blob proof) {
    link.write(connection, MessageCodec.encode(new Envelope(0, false,
        new Message.Handshake(MessageCodec.PROTOCOL_VERSION, config.clusterName(), local, connection.localNonce, proof))));
  }
}
