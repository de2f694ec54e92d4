package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.OversizedFrameException;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.core.wire.WireException;
import java.nio.ByteBuffer;
import java.util.OptionalInt;

/**
 * The three-step challenge that opens every connection: the dialer's hello, the acceptor's challenge carrying its
 * proof, the dialer's proof. Each proof is an HMAC over both nonces, the cluster name and the prover's node id
 * ({@link PeerAuthenticator}), so a proof recorded on one connection is worthless on another.
 *
 * <p>Versions: each hello names the range of protocol versions its sender speaks, and each end settles on the highest
 * version both ranges hold, recorded on the connection (the proofs cover both ranges, so the two ends settle on the
 * same one or fail). With none shared the peer is refused by name ({@link RefusalCause#PROTOCOL_VERSION}, naming
 * both ranges); the acceptor first answers with its own hello, without a proof, so that the dialer (a transport or
 * a {@link MemberProbe}) refuses by name too instead of taking the closed connection for an unreachable member. A
 * version-4 hello reads as a range of 4 alone and is refused the same way (version 4 cannot read the answer, and
 * refuses it as unreadable).
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

    /** {@link #refuse}, but the connection closes only once {@code answer} is written. */
    void refuseAnswering(PeerConnection connection, RefusalCause cause, String why, ByteBuffer answer);
  }

  private final GrizzlyTransportConfig config;
  private final NodeId local;
  private final ProtocolVersions spoken;
  private final PeerAuthenticator authenticator;
  private final Link link;

  HandshakeProtocol(GrizzlyTransportConfig config, PeerAuthenticator authenticator, Link link) {
    this.config = config;
    this.local = config.localNode();
    this.spoken = config.protocolVersions();
    this.authenticator = authenticator;
    this.link = link;
  }

  /** Dialer: opens with the hello. */
  void hello(PeerConnection connection) {
    link.write(connection, frame(connection, Blob.EMPTY));
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
        connection.peerVersions(hello.versions());
        OptionalInt shared = spoken.sharedHighest(hello.versions());
        if (shared.isEmpty()) {
          // Answered before the close: the dialer learns this node's range and refuses it by name in turn.
          link.refuseAnswering(connection, RefusalCause.PROTOCOL_VERSION, noVersionInCommon(hello.versions()),
              frame(connection, Blob.EMPTY));
          return;
        }
        connection.protocolVersion(shared.getAsInt());
        connection.state(PeerConnection.State.AWAITING_PROOF);
        link.write(connection, frame(connection, authenticator.proof(hello.nonce(), connection.localNonce, local, hello.versions(), spoken)));
      }
      case AWAITING_CHALLENGE -> {
        OptionalInt shared = spoken.sharedHighest(hello.versions());
        if (shared.isEmpty()) {
          link.refuse(connection, RefusalCause.PROTOCOL_VERSION, noVersionInCommon(hello.versions()));
          return;
        }
        if (!hello.node().equals(connection.peer())) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "answered as " + hello.node().value() + " where " + connection.peer().value() + " was dialed");
          return;
        }
        if (!authenticator.verify(hello.proof(), connection.localNonce, hello.nonce(), hello.node(), spoken, hello.versions())) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "could not prove the cluster's shared secret");
          return;
        }
        connection.peer(hello.node(), hello.nonce());
        connection.peerVersions(hello.versions());
        connection.protocolVersion(shared.getAsInt());
        link.write(connection, frame(connection, authenticator.proof(hello.nonce(), connection.localNonce, local, spoken, hello.versions())));
        link.authenticated(connection);
      }
      case AWAITING_PROOF -> {
        // The proof covers the ranges of the first hello: a proof that repeats another range fails it.
        if (!hello.node().equals(connection.peer()) || !hello.nonce().equals(connection.peerNonce())
            || !authenticator.verify(hello.proof(), connection.localNonce, hello.nonce(), hello.node(), connection.peerVersions(), spoken)) {
          link.refuse(connection, RefusalCause.WRONG_SECRET, "could not prove the cluster's shared secret");
          return;
        }
        link.authenticated(connection);
      }
      default -> link.refuse(connection, RefusalCause.PROTOCOL_VIOLATION, "sent a handshake in state " + connection.state());
    }
  }

  /** Why a peer that shares no version is refused, naming both ranges (and version 4 as what it is). */
  static String noVersionInCommon(ProtocolVersions local, ProtocolVersions peer) {
    String theirs = peer.highest() < ProtocolVersions.FIRST_NEGOTIATING
        ? "speaks protocol version " + peer + " only (a release before versions were negotiated)"
        : "speaks protocol version" + (peer.lowest() == peer.highest() ? " " : "s ") + peer;
    return theirs + ", and this node speaks " + local + ": no version in common";
  }

  /** The refusal's log line: the facts, and what to do about them. */
  private String noVersionInCommon(ProtocolVersions peer) {
    return noVersionInCommon(spoken, peer) + ". Each release speaks the version before its own: upgrade one release at a"
        + " time (from version 4, restart the whole cluster)";
  }

  private ByteBuffer frame(PeerConnection connection, Blob proof) {
    return MessageCodec.encode(new Envelope(0, false,
        new Message.Handshake(spoken, config.clusterName(), local, connection.localNonce, proof)));
  }
}
