package io.tandem.core.codec;

import java.util.Locale;

/** Which serializer turns attribute values into bytes. */
public enum CodecKind {
  KRYO,
  JDK;

  /** Parses {@code kryo} or {@code jdk}, ignoring case. */
  public static CodecKind parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown codec '" + text + "', expected kryo or jdk", e);
    }
  }
}
