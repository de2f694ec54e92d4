package io.tandem.core.session;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Serialized bytes of one attribute, principal or note. Equality is by content.
 *
 * <p>The array is not copied: whoever makes a blob hands the array over and never writes to it again. Blobs travel
 * from codec to wire to backup store without copies, which is what keeps backups bytes-only and cheap.
 */
public final class Blob {
  public static final Blob EMPTY = new Blob(new byte[0]);

  private final byte[] bytes;

  private Blob(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Takes ownership of {@code bytes}; the caller must not modify the array afterwards. */
  public static Blob wrap(byte[] bytes) {
    return new Blob(Objects.requireNonNull(bytes, "bytes"));
  }

  /** The bytes, not copied: do not modify. */
  public byte[] bytes() {
    return bytes;
  }

  public int size() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Blob other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return bytes.length <= 16
        ? "Blob[" + HexFormat.of().formatHex(bytes) + "]"
        : "Blob[" + bytes.length + " bytes]";
  }
}
