package io.tandem.core.codec;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The serialization formats Tandem can use for attribute values; chosen by configuration. */
public enum CodecKind {
  /** Kryo 5: compact and fast; the default. */
  KRYO,
  /** JDK serialization: slower and larger, but handles any {@link java.io.Serializable} exactly as Tomcat does. */
  JDK;

  /**
   * Parses a configuration value, ignoring case and surrounding blanks.
   *
   * @throws IllegalArgumentException naming the allowed values when {@code value} is none of them
   */
  public static CodecKind parse(String value) {
    if (value != null) {
      String v = value.strip().toUpperCase(Locale.ROOT);
      for (CodecKind kind : values()) {
        if (kind.name().equals(v)) {
          return kind;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown codec '" + value + "': allowed values are " + allowedValues());
  }

  /** The lower-case configuration name, e.g. {@code kryo}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static String allowedValues() {
    return Arrays.stream(values()).map(CodecKind::configName).collect(Collectors.joining(", "));
  }
}
