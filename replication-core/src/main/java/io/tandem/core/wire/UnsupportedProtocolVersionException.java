package io.tandem.core.wire;

/** The frame was written by a peer speaking another protocol version. The frame is skipped. */
public final class UnsupportedProtocolVersionException extends WireException {
  private static final long serialVersionUID = 1L;
  private final int version;

  public UnsupportedProtocolVersionException(int version, long correlationId) {
    super("peer speaks protocol version " + version + ", this node speaks " + MessageCodec.PROTOCOL_VERSION, correlationId);
    this.version = version;
  }

  public int version() {
    return version;
  }
}
