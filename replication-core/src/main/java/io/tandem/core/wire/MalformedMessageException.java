package io.tandem.core.wire;

/** The frame was complete but its payload is not a valid message of its type. The frame is skipped. */
public final class MalformedMessageException extends WireException {
  private static final long serialVersionUID = 1L;

  public MalformedMessageException(String message) {
    super(message, -1);
  }

  public MalformedMessageException(String message, long correlationId) {
    super(message, correlationId);
  }
}
