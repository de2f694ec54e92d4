package io.tandem.core.session;

import java.util.Objects;

/**
 * An attribute value a container holds still as the bytes it was replicated as: a session taken over from another
 * node decodes each attribute when the application first reads it, not all at once. {@link SessionSource#attribute}
 * may return one; the engine then replicates these bytes as they are, and counts the value as unchanged by reads
 * (the application has never seen it).
 *
 * @param bytes the encoded value, exactly as the codec wrote it
 */
public record EncodedValue(Blob bytes) {
  public EncodedValue {
    Objects.requireNonNull(bytes, "bytes");
  }

  @Override
  public String toString() {
    return "EncodedValue[" + bytes.size() + " bytes]";
  }
}
