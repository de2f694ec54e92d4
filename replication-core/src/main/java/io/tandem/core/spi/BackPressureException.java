package io.tandem.core.spi;

/** The outbound queue to a peer is at its bound; the message was not queued. */
public final class BackPressureException extends TransportException {
  private static final long serialVersionUID = 1L;

  public BackPressureException(NodeId peer, long queuedBytes, long boundBytes) {
    super(peer, "outbound queue to " + peer + " is full: " + queuedBytes + " of " + boundBytes + " bytes", null);
  }
}
