package io.tandem.core.wire;

/** The frame's type code names no known message. The frame is skipped. */
public final class UnknownMessageTypeException extends WireException {
  private static final long serialVersionUID = 1L;
  private final int code;

  public UnknownMessageTypeException(int code, long correlationId) {
    super("unknown message type code " + code, correlationId);
    this.code = code;
  }

  public int code() {
    return code;
  }
}
