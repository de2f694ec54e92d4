package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Appends big-endian fields to a buffer. Not thread-safe; one per encode.
 *
 * <p>A frame is written twice: first by a {@linkplain #measuring() measuring} writer, which only counts bytes,
 * then by one {@linkplain #sized(long) sized} to that count, so the frame is allocated once at its exact size and
 * each blob is copied once, straight into it. Strings are encoded into the buffer as they are written, with no
 * intermediate array. The buffer still grows if more is written than was measured, so a miscount costs a copy,
 * not a failure.
 */
final class WireWriter {
  /** Largest array the JVM reliably allocates. */
  static final int MAX_SIZE = Integer.MAX_VALUE - 8;

  private final boolean measuring;
  private byte[] buf;
  private long pos;

  private WireWriter(boolean measuring, int capacity) {
    this.measuring = measuring;
    this.buf = measuring ? null : new byte[capacity];
  }

  /** A writer that only counts the bytes written, for {@link #position()}. */
  static WireWriter measuring() {
    return new WireWriter(true, 0);
  }

  /** A writer whose buffer holds exactly {@code size} bytes. */
  static WireWriter sized(long size) {
    return new WireWriter(false, (int) checkSize(size));
  }

  private static long checkSize(long size) {
    if (size > MAX_SIZE) {
      throw new IllegalArgumentException("message larger than 2GiB cannot be encoded");
    }
    return size;
  }

  private void ensure(int more) {
    if (measuring) {
      return;
    }
    if (pos + more > buf.length) {
      long wanted = checkSize(Math.max((long) buf.length * 2, pos + more));
      buf = Arrays.copyOf(buf, (int) wanted);
    }
  }

  /** Bytes written so far (counted, for a measuring writer). */
  long position() {
    return pos;
  }

  void u8(int v) {
    ensure(1);
    if (!measuring) {
      buf[(int) pos] = (byte) v;
    }
    pos++;
  }

  void bool(boolean v) {
    u8(v ? 1 : 0);
  }

  void i32(int v) {
    ensure(4);
    if (!measuring) {
      putI32((int) pos, v);
    }
    pos += 4;
  }

  void putI32(int at, int v) {
    if (measuring) {
      return;
    }
    buf[at] = (byte) (v >>> 24);
    buf[at + 1] = (byte) (v >>> 16);
    buf[at + 2] = (byte) (v >>> 8);
    buf[at + 3] = (byte) v;
  }

  void i64(long v) {
    i32((int) (v >>> 32));
    i32((int) v);
  }

  void blob(Blob b) {
    i32(b.size());
    ensure(b.size());
    if (!measuring) {
      System.arraycopy(b.array(), b.offset(), buf, (int) pos, b.size());
    }
    pos += b.size();
  }

  /** The UTF-8 length, then the bytes; exactly what {@code s.getBytes(UTF_8)} gives ('?' for a lone surrogate). */
  void string(String s) {
    int length = Utf8.encodedLength(s);
    i32(length);
    ensure(length);
    if (!measuring) {
      Utf8.encode(s, buf, (int) pos);
    }
    pos += length;
  }

  /** A presence byte, then the string when present. */
  void nullableString(String s) {
    bool(s != null);
    if (s != null) {
      string(s);
    }
  }

  void nullableBlob(Blob b) {
    bool(b != null);
    if (b != null) {
      blob(b);
    }
  }

  /** The bytes written; over the whole buffer when the measured size was exact. */
  ByteBuffer toBuffer() {
    checkSize(pos);
    if (measuring) {
      throw new IllegalStateException("a measuring writer has no bytes");
    }
    return ByteBuffer.wrap(buf, 0, (int) pos);
  }
}
