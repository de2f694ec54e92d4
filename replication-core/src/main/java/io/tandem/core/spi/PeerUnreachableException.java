package io.tandem.core.spi;

/** No connection to the peer could be used: it is not in the view, refused us, or closed the connection. */
public final class PeerUnreachableException extends TransportException {
  private static final long serialVersionUID = 1L;

  public PeerUnreachableException(NodeId peer, String reason) {
    super(peer, "peer " + peer + " unreachable: " + reason, null);
  }
}
