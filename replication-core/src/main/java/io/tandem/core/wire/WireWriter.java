package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Appends big-endian fields to a growable buffer. Not thread-safe; one per encode. */
final class WireWriter {
  private byte[] buf;
  private int pos;

  WireWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      long wanted = Math.max((long) buf.length * 2, (long) pos + more);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("message larger than 2GiB cannot be encoded");
      }
      buf = Arrays.copyOf(buf, (int) wanted);
    }
  }

  int position() {
    return pos;
  }

  void u8(int v) {
    ensure(1);
    buf[pos++] = (byte) v;
  }

  void bool(boolean v) {
    u8(v ? 1 : 0);
  }

  void i32(int v) {
    ensure(4);
    buf[pos++] = (byte) (v >>> 24);
    buf[pos++] = (byte) (v >>> 16);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  void putI32(int at, int v) {
    buf[at] = (byte) (v >>> 24);
    buf[at + 1] = (byte) (v >>> 16);
    buf[at + 2] = (byte) (v >>> 8);
    buf[at + 3] = (byte) v;
  }

  void i64(long v) {
    i32((int) (v >>> 32));
    i32((int) v);
  }

  void bytes(byte[] b) {
    i32(b.length);
    ensure(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  void blob(Blob b) {
    bytes(b.bytes());
  }

  void string(String s) {
    bytes(s.getBytes(StandardCharsets.UTF_8));
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

  ByteBuffer toBuffer() {
    return ByteBuffer.wrap(buf, 0, pos);
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }
}
