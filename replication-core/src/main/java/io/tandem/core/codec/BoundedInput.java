package io.tandem.core.codec;

import com.esotericsoftware.kryo.io.Input;

/**
 * A Kryo input over a complete byte array (or a range of one) that refuses any declared length larger than the bytes left, before
 * allocating for it. Every element occupies at least one byte, so a larger length can only come from a corrupt
 * or hostile stream; without this check a 5-byte varint can make Kryo allocate gigabytes.
 */
final class BoundedInput extends Input {

  /** Over {@code count} bytes of {@code bytes} from {@code offset}; nothing outside that range is read. */
  BoundedInput(byte[] bytes, int offset, int count) {
    super(bytes, offset, count);
  }

  int remaining() {
    return limit() - position();
  }

  private void checkLength(int length) {
    if (length < 0 || length > remaining()) {
      throw new CodecException(
          "cannot deserialize value: declared length "
              + length
              + " exceeds the "
              + remaining()
              + " bytes left (corrupt or truncated data)");
    }
  }

  @Override
  public byte[] readBytes(int length) {
    checkLength(length);
    return super.readBytes(length);
  }

  @Override
  public int[] readInts(int length) {
    checkLength(length);
    return super.readInts(length);
  }

  @Override
  public int[] readInts(int length, boolean optimizePositive) {
    checkLength(length);
    return super.readInts(length, optimizePositive);
  }

  @Override
  public long[] readLongs(int length) {
    checkLength(length);
    return super.readLongs(length);
  }

  @Override
  public long[] readLongs(int length, boolean optimizePositive) {
    checkLength(length);
    return super.readLongs(length, optimizePositive);
  }

  @Override
  public float[] readFloats(int length) {
    checkLength(length);
    return super.readFloats(length);
  }

  @Override
  public double[] readDoubles(int length) {
    checkLength(length);
    return super.readDoubles(length);
  }

  @Override
  public short[] readShorts(int length) {
    checkLength(length);
    return super.readShorts(length);
  }

  @Override
  public char[] readChars(int length) {
    checkLength(length);
    return super.readChars(length);
  }

  @Override
  public boolean[] readBooleans(int length) {
    checkLength(length);
    return super.readBooleans(length);
  }

  @Override
  public String readString() {
    checkStringLength();
    return super.readString();
  }

  @Override
  public StringBuilder readStringBuilder() {
    checkStringLength();
    return super.readStringBuilder();
  }

  /** UTF-8 strings carry a char count that Kryo allocates for up front; ASCII strings are self-delimiting. */
  private void checkStringLength() {
    int start = position();
    if (remaining() > 0 && readVarIntFlag()) {
      int charCount = readVarIntFlag(true);
      int chars = charCount - 1; // 0 = null, 1 = empty
      setPosition(start);
      if (chars > 0) {
        checkLength(chars);
      }
    } else {
      setPosition(start);
    }
  }
}
