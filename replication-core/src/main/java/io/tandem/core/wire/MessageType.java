package io.tandem.core.wire;

/** The type byte of a frame. Codes are part of the protocol: never renumber, only add. */
public enum MessageType {
  HANDSHAKE(1),
  FULL_SESSION(2),
  SESSION_DELTA(3),
  TOUCH_BATCH(4),
  INVALIDATE(5),
  ID_CHANGE(6),
  ACK(7),
  NACK(8),
  LOCATE(9),
  LOCATE_REPLY(10),
  MIGRATE(11),
  BULK_TRANSFER(12),
  ACK_RANGE(13),
  BULK_REFUSALS(14),
  IN_CONTEXT(15),
  CONTEXTS(16);

  private static final MessageType[] BY_CODE = new MessageType[256];

  static {
    for (MessageType type : values()) {
      BY_CODE[type.code] = type;
    }
  }

  private final int code;

  MessageType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The type for a code, or null when the code is unknown. */
  public static MessageType fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
