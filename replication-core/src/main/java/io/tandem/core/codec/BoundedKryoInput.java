package io.tandem.core.codec;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * A Kryo input over one serialized value that refuses lengths the value cannot contain. Kryo reads collection,
 * array and string lengths and then allocates; a crafted length would allocate gigabytes. Every positive varint
 * here (lengths, sizes, reference and class-name ids) is at most the value's byte count, and at most the
 * collection limit, or the bytes are corrupt.
 */
final class BoundedKryoInput extends Input {
  private final int maxCount;

  BoundedKryoInput(byte[] bytes, int maxCollectionSize) {
    super(bytes);
    this.maxCount = Math.min(bytes.length, maxCollectionSize) + 1;
  }

  @Override
  public int readVarInt(boolean optimizePositive) {
    return bounded(super.readVarInt(optimizePositive), optimizePositive);
  }

  @Override
  public int readVarIntFlag(boolean optimizePositive) {
    return bounded(super.readVarIntFlag(optimizePositive), optimizePositive);
  }

  private int bounded(int value, boolean length) {
    if (length && (value < 0 || value > maxCount)) {
      throw new KryoException("length or id " + value + " cannot occur in a value of " + limit + " bytes");
    }
    return value;
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
