package io.tandem.benchmarks.replication;

import java.nio.ByteBuffer;

/**
 * The floor's frames: {@code [int32 length][int32 writer][int64 sequence][filler]}, big-endian, where the length
 * counts every byte after itself, as in Tandem's wire format. A frame is padded to a stated total size so the floor
 * moves exactly as many bytes as Tandem does per update and per ack; the filler is copied in, never read.
 *
 * <p>{@link Reader} cuts frames out of a buffer that may end anywhere (a read returns what the socket had); it keeps
 * no state between calls, so the caller compacts the buffer and reads more. One reader per connection thread.
 */
final class FloorFrames {
  static final int LENGTH_BYTES = 4;
  /** Length prefix, writer index and sequence: the smallest frame. */
  static final int MIN_FRAME_BYTES = LENGTH_BYTES + 4 + 8;

  private FloorFrames() {}

  /**
   * Appends one frame of exactly {@code frameBytes} bytes to {@code out}, its filler copied from {@code filler}
   * (which must hold at least {@code frameBytes - MIN_FRAME_BYTES} bytes).
   */
  static void write(ByteBuffer out, int frameBytes, int writer, long sequence, byte[] filler) {
    if (frameBytes < MIN_FRAME_BYTES) {
      throw new IllegalArgumentException("frame of " + frameBytes + " bytes (at least " + MIN_FRAME_BYTES + ")");
    }
    out.putInt(frameBytes - LENGTH_BYTES);
    out.putInt(writer);
    out.putLong(sequence);
    out.put(filler, 0, frameBytes - MIN_FRAME_BYTES);
  }

  /** A frame that breaks the format: the connection cannot be read further. */
  static final class CorruptFloorFrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CorruptFloorFrameException(String message) {
      super(message);
    }
  }

  /** Cuts frames out of a buffer in read mode; after {@link #next} returns true, the frame's fields are readable. */
  static final class Reader {
    private final int maxFrameBytes;
    private int writer;
    private long sequence;

    Reader(int maxFrameBytes) {
      if (maxFrameBytes < MIN_FRAME_BYTES) {
        throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes);
      }
      this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * Consumes one complete frame from {@code in} and returns true, or returns false and leaves {@code in} untouched
     * when the next frame is not complete yet.
     *
     * @throws CorruptFloorFrameException when the length is outside {@code MIN_FRAME_BYTES..maxFrameBytes}
     */
    boolean next(ByteBuffer in) {
      if (in.remaining() < LENGTH_BYTES) {
        return false;
      }
      int start = in.position();
      int length = in.getInt(start);
      if (length < MIN_FRAME_BYTES - LENGTH_BYTES || length > maxFrameBytes - LENGTH_BYTES) {
        throw new CorruptFloorFrameException("frame length " + length + " at byte " + start + " (frames are "
            + MIN_FRAME_BYTES + " to " + maxFrameBytes + " bytes, prefix included)");
      }
      if (in.remaining() < LENGTH_BYTES + length) {
        return false;
      }
      writer = in.getInt(start + LENGTH_BYTES);
      sequence = in.getLong(start + LENGTH_BYTES + 4);
      in.position(start + LENGTH_BYTES + length);
      return true;
    }

    int writer() {
      return writer;
    }

    long sequence() {
      return sequence;
    }
  }
}
