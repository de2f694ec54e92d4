package io.tandem.core.session;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Serialized bytes of one attribute, principal or note. Equality is by content.
 *
 * <p>The bytes are not copied: whoever makes a blob hands the array (or a range of it) over and never writes to it
 * again, so a blob never changes once created. Blobs travel from codec to wire to backup store without copies,
 * which is what keeps backups bytes-only and cheap. A blob may be a range of a larger array (the buddy's decoder
 * keeps a large value as a range of the frame it arrived in instead of copying it); readers that care about copies
 * use {@link #array()}, {@link #offset()} and {@link #size()}, and {@link #bytes()} copies only for such a range.
 */
public final class Blob {
  public static final Blob EMPTY = new Blob(new byte[0], 0, 0);

  private final byte[] array;
  private final int offset;
  private final int length;

  private Blob(byte[] array, int offset, int length) {
    this.array = array;
    this.offset = offset;
    this.length = length;
  }

  /** Takes ownership of {@code bytes}; the caller must not modify the array afterwards. */
  public static Blob wrap(byte[] bytes) {
    return new Blob(Objects.requireNonNull(bytes, "bytes"), 0, bytes.length);
  }

  /**
   * Takes ownership of {@code length} bytes of {@code array} from {@code offset}: nobody may modify that range
   * afterwards. The rest of the array stays reachable as long as the blob is, so wrap a range only of an array
   * not much larger than it.
   */
  public static Blob wrap(byte[] array, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(array, "array").length);
    return new Blob(array, offset, length);
  }

  /**
   * The bytes as an array of exactly {@link #size()} bytes: the blob's own array, not copied (do not modify), or a
   * copy when the blob is a range of a larger array.
   */
  public byte[] bytes() {
    return offset == 0 && length == array.length ? array : Arrays.copyOfRange(array, offset, offset + length);
  }

  /** The array holding the bytes, from {@link #offset()} for {@link #size()} bytes; not copied: do not modify. */
  public byte[] array() {
    return array;
  }

  public int offset() {
    return offset;
  }

  public int size() {
    return length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Blob other
        && Arrays.equals(array, offset, offset + length, other.array, other.offset, other.offset + other.length);
  }

  /** Equal to {@code Arrays.hashCode(bytes())}, whether or not the blob is a range. */
  @Override
  public int hashCode() {
    int h = 1;
    for (int i = offset, end = offset + length; i < end; i++) {
      h = 31 * h + array[i];
    }
    return h;
  }

  @Override
  public String toString() {
    return length <= 16
        ? "Blob[" + HexFormat.of().formatHex(array, offset, offset + length) + "]"
        : "Blob[" + length + " bytes]";
  }
}
