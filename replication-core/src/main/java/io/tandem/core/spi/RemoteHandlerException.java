package io.tandem.core.spi;

/** The peer received the request but its handler failed; the peer said why. */
public final class RemoteHandlerException extends TransportException {
  private static final long serialVersionUID = 1L;

  public RemoteHandlerException(NodeId peer, String detail) {
    super(peer, "peer " + peer + " failed to handle the request: " + detail, null);
  }
}
