package io.tandem.core.codec;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the Kryo codec writes the fields of application classes (the {@code kryoFieldSerializer} setting). Every value
 * names its encoding in its first byte ({@link #tag()}), so a node reads values of either encoding whatever its own
 * setting: the setting decides only how this node writes.
 */
public enum KryoFieldEncoding {
  /**
   * Kryo's {@code CompatibleFieldSerializer}: each value carries the names of its classes' fields (once per class per
   * value) and the class of each field's value, so that a value written by an older or newer version of a class, with
   * fields added or removed, is read by this one: a field the bytes do not hold keeps the value the class's no-arg
   * constructor gives it (else the JVM default), a field the class no longer has is skipped. Enums are written by
   * constant name, so inserting or reordering constants changes no value. The default.
   */
  COMPATIBLE((byte) 0xC1),
  /**
   * Kryo's {@code FieldSerializer}: fields by position (sorted by name), no names, enums by ordinal. Smaller and
   * faster, but any change to a class's fields, or to the order of an enum's constants, makes its older values
   * unreadable by the new class, or read as wrong values.
   */
  FAST((byte) 0xC2);

  private final byte tag;

  KryoFieldEncoding(byte tag) {
    this.tag = tag;
  }

  /** The first byte of every value written in this encoding. */
  byte tag() {
    return tag;
  }

  /** The encoding whose tag is {@code tag}, or null. */
  static KryoFieldEncoding ofTag(byte tag) {
    for (KryoFieldEncoding encoding : values()) {
      if (encoding.tag == tag) {
        return encoding;
      }
    }
    return null;
  }

  /**
   * Parses a configuration value, ignoring case and surrounding blanks.
   *
   * @throws IllegalArgumentException naming the allowed values when {@code value} is none of them
   */
  public static KryoFieldEncoding parse(String value) {
    if (value != null) {
      String v = value.strip().toUpperCase(Locale.ROOT);
      for (KryoFieldEncoding encoding : values()) {
        if (encoding.name().equals(v)) {
          return encoding;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown Kryo field serializer '" + value + "': allowed values are " + allowedValues());
  }

  /** The lower-case configuration name, e.g. {@code compatible}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static String allowedValues() {
    return Arrays.stream(values()).map(KryoFieldEncoding::configName).collect(Collectors.joining(", "));
  }
}
