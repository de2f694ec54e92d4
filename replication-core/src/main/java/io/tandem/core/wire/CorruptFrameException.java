package io.tandem.core.wire;

/**
 * A length prefix that cannot be a frame (shorter than a header, or negative). Frame boundaries are lost, so the
 * decoder refuses everything after it: the transport must close the connection.
 */
public final class CorruptFrameException extends WireException {
  private static final long serialVersionUID = 1L;

  public CorruptFrameException(String message) {
    super(message, -1);
  }
}
