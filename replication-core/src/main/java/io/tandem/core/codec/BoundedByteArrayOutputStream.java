package io.tandem.core.codec;

import java.io.ByteArrayOutputStream;

/** A byte sink that refuses to grow past a limit, so serializing a huge value fails early instead of eating heap. */
final class BoundedByteArrayOutputStream extends ByteArrayOutputStream {
  private final int max;

  BoundedByteArrayOutputStream(int max) {
    super(Math.min(max, 512));
    this.max = max;
  }

  @Override
  public synchronized void write(int b) {
    check(1);
    super.write(b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    check(len);
    super.write(b, off, len);
  }

  private void check(int more) {
    if ((long) count + more > max) {
      throw new LimitExceeded((long) count + more);
    }
  }

  /** Unchecked so that it passes through ObjectOutputStream unwrapped. */
  static final class LimitExceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final long size;

    LimitExceeded(long size) {
      super(null, null, false, false);
      this.size = size;
    }
  }
}
