package io.tandem.core.wire;

/** The frame carries another protocol version than the one its connection speaks. The frame is skipped. */
public final class UnsupportedProtocolVersionException extends WireException {
  private static final long serialVersionUID = 1L;
  private final int version;

  public UnsupportedProtocolVersionException(int version, int spoken, long correlationId) {
    super("a frame of protocol version " + version + " on a connection that speaks version " + spoken, correlationId);
    this.version = version;
  }

  public int version() {
    return version;
  }
}
