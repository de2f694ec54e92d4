package io.tandem.core.wire;

/**
 * Bytes from the wire that are not a frame or message this node can accept. Each subclass names one failure;
 * {@link #correlationId()} lets a transport answer the offending request when the header could be read.
 */
public abstract class WireException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long correlationId;

  protected WireException(String message, long correlationId) {
    super(message);
    this.correlationId = correlationId;
  }

  /** The frame's correlation id, or -1 when the header was not read. */
  public long correlationId() {
    return correlationId;
  }
}
