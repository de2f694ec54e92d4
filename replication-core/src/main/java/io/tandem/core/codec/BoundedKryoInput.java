package io.tandem.core.codec;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * A Kryo input over one serialized value that refuses lengths the value cannot contain. Kryo reads collection,
 * array and string lengths and then allocates; a crafted length would allocate gigabytes. Strings are checked
 * here; collections, maps and arrays by the codec's bounded serializers through {@link #fits} and {@link
 * #checkNextArrayLength}.
 */
final class BoundedKryoInput extends Input {
  private final int maxCount;

  BoundedKryoInput(byte[] bytes, int maxCollectionSize) {
    super(bytes);
    this.maxCount = maxCollectionSize;
  }

  /**
   * Checks, without consuming it, the length an array serializer is about to read (Kryo writes length + 1, zero
   * meaning null): each element takes at least one byte, so a length beyond the bytes left is corrupt.
   */
  void checkNextArrayLength() {
    int start = position;
    int lengthPlusOne = readVarInt(true);
    setPosition(start);
    long length = (lengthPlusOne & 0xffffffffL) - 1;
    if (length > maxCount || length > limit - start) {
      throw new KryoException("array of " + length + " elements cannot occur in the " + (limit - start) + " bytes left");
    }
  }

  /** Whether {@code size} elements of at least {@code minBytes} each fit in what is left. */
  boolean fits(int size, int minBytes) {
    return size >= 0 && size <= maxCount && (long) size * minBytes <= limit - position;
  }

  @Override
  public String readString() {
    checkUtf8Length();
    return super.readString();
  }

  @Override
  public StringBuilder readStringBuilder() {
    checkUtf8Length();
    return super.readStringBuilder();
  }

  /** Peeks Kryo's string header: a UTF-8 string declares its char count, and each char takes at least a byte. */
  private void checkUtf8Length() {
    int p = position;
    if (p >= limit || (buffer[p] & 0x80) == 0) {
      return; // an ASCII string: read up to its end marker, bounded by the input
    }
    int b = buffer[p++];
    long count = b & 0x3F;
    int shift = 6;
    boolean more = (b & 0x40) != 0;
    while (more && p < limit && shift <= 27) {
      b = buffer[p++];
      count |= (long) (b & 0x7F) << shift;
      shift += 7;
      more = (b & 0x80) != 0;
    }
    if (count - 1 > limit - p) {
      throw new KryoException("string of " + (count - 1) + " chars cannot occur in the " + (limit - p) + " bytes left");
    }
  }
}
