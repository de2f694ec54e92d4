package io.tandem.core.spi;

/** A request could not be carried to its peer or answered. */
public class TransportException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final NodeId peer;

  public TransportException(NodeId peer, String message, Throwable cause) {
    super(message, cause);
    this.peer = peer;
  }

  public NodeId peer() {
    return peer;
  }
}
