package io.tandem.transport.grizzly;

/** Why the transport refused a peer, a connection or a frame; each has its own counter on JMX. */
public enum RefusalCause {
  /** The peer could not prove the shared secret (or its proof did not match the node id it claimed). */
  WRONG_SECRET(true),
  /** The peer's handshake named another cluster. */
  WRONG_CLUSTER(true),
  /** The peer speaks another protocol version. */
  PROTOCOL_VERSION(true),
  /** Something other than the next handshake step before authenticating, or a frame that cannot be read then. */
  PROTOCOL_VIOLATION(false),
  /** A frame larger than a handshake declared before authenticating. */
  OVERSIZED_BEFORE_AUTHENTICATION(false),
  /** No proven secret within the handshake deadline (silent, slow or half-open). */
  HANDSHAKE_TIMEOUT(false),
  /** An authenticated peer started a frame and did not finish it within the stalled-frame deadline. */
  STALLED_FRAME(false),
  /** Too many connections in their handshake, from that address or in total. */
  TOO_MANY_UNAUTHENTICATED(false),
  /** Framing was lost (a length shorter than a header): the connection is closed. */
  CORRUPT_FRAMING(false),
  /** An authenticated peer's frame could not be read (oversized, malformed, unknown type); it was answered with a Nack. */
  REFUSED_FRAME(false);

  private final boolean failedAuthentication;

  RefusalCause(boolean failedAuthentication) {
    this.failedAuthentication = failedAuthentication;
  }

  /** Whether a peer that spoke the handshake was refused membership (these make up "refused peers"). */
  public boolean failedAuthentication() {
    return failedAuthentication;
  }
}
