package io.tandem.core.wire;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Cuts a byte stream into frames and decodes each into an {@link Envelope}. Bytes may arrive in any chunking.
 *
 * <p>Memory: the decoder holds at most one frame, and allocates it as its bytes arrive, never from the declared
 * length alone: a frame starts with room for the smaller of its length and what has arrived (at least {@value
 * #INITIAL_CAPACITY} bytes) and grows geometrically up to its declared length, so a peer that declares 32 MiB and
 * sends 8 bytes costs kilobytes. A frame that arrives in one read is allocated once, at its exact size, and
 * copied once. The declared length is checked against the current limit first; an oversized frame is reported at
 * once and its bytes are then skipped as they arrive, never buffered. The limit can change between frames ({@link
 * #maxFrameSize(int)}): a transport keeps it at the size of a handshake until the peer has authenticated. {@link
 * #feed} keeps a reference to the caller's buffer instead of copying it: the caller must leave the buffer alone
 * until {@link #next} has returned null.
 *
 * <p>Versions: a frame must carry the protocol version the connection speaks ({@link #protocolVersion(int)}, this
 * code's highest until the handshake settles it), except a handshake frame, which is read whatever version its sender
 * speaks: framed as {@link MessageCodec#HELLO_FRAMING} or above it is a hello with a version range, below it the
 * hello of a node before version negotiation (see {@link MessageCodec}). So a hello of any version reaches the
 * handshake, which can refuse it by name.
 *
 * <p>After an {@link OversizedFrameException}, {@link UnsupportedProtocolVersionException}, {@link
 * UnknownMessageTypeException} or {@link MalformedMessageException} the next call continues with the following
 * frame. After a {@link CorruptFrameException} frame boundaries are lost and every call throws it again.
 *
 * <p>Implementation notes: one decoder per connection, used by one thread at a time (the connection's); no locks.
 */
public final class FrameDecoder {
  private enum State {
    LENGTH,
    FRAME,
    SKIP
  }

  /** Room a new frame starts with when fewer of its bytes have arrived; frames up to this size never grow. */
  static final int INITIAL_CAPACITY = 16 * 1024;

  private int maxFrameSize;
  private int version = MessageCodec.PROTOCOL_VERSION;
  private final ArrayDeque<ByteBuffer> input = new ArrayDeque<>();
  private final byte[] lengthBytes = new byte[MessageCodec.LENGTH_BYTES];
  private int lengthFilled;
  private State state = State.LENGTH;
  private byte[] frame;
  private int frameLength;
  private int frameFilled;
  private long skipRemaining;
  private CorruptFrameException failure;

  /** @param maxFrameSize the largest frame accepted, length prefix included */
  public FrameDecoder(int maxFrameSize) {
    maxFrameSize(maxFrameSize);
  }

  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** Sets the largest frame accepted from the next length prefix on; a frame already started keeps its length. */
  public void maxFrameSize(int limit) {
    if (limit < MessageCodec.LENGTH_BYTES + MessageCodec.HEADER_BYTES) {
      throw new IllegalArgumentException("maxFrameSize " + limit + " is smaller than a frame header");
    }
    this.maxFrameSize = limit;
  }

  /** The version frames other than handshakes must carry from the next frame on: the one the connection speaks. */
  public void protocolVersion(int spoken) {
    if (spoken < 1 || spoken > 255) {
      throw new IllegalArgumentException("protocol version " + spoken + " does not fit a frame's version byte");
    }
    this.version = spoken;
  }

  public int protocolVersion() {
    return version;
  }

  /** Whether part of a frame (or of its length prefix) has been read and the rest is still awaited. */
  public boolean inFrame() {
    return state != State.LENGTH || lengthFilled > 0;
  }

  /** Adds bytes; they are consumed by {@link #next}. */
  public void feed(ByteBuffer bytes) {
    if (bytes.hasRemaining()) {
      input.addLast(bytes);
    }
  }

  /**
   * The next complete envelope, or null when more bytes are needed.
   *
   * @throws WireException for a frame that cannot be accepted; see the class comment for what happens next
   */
  public Envelope next() {
    if (failure != null) {
      throw failure;
    }
    while (true) {
      switch (state) {
        case LENGTH -> {
          lengthFilled += take(lengthBytes, lengthFilled, lengthBytes.length - lengthFilled);
          if (lengthFilled < lengthBytes.length) {
            return null;
          }
          lengthFilled = 0;
          int length = ByteBuffer.wrap(lengthBytes).getInt();
          if (length < MessageCodec.HEADER_BYTES) {
            failure = new CorruptFrameException(
                "frame length " + length + " is shorter than the " + MessageCodec.HEADER_BYTES + "-byte header; the stream is out of sync");
            throw failure;
          }
          if ((long) length + MessageCodec.LENGTH_BYTES > maxFrameSize) {
            state = State.SKIP;
            skipRemaining = length;
            throw new OversizedFrameException((long) length + MessageCodec.LENGTH_BYTES, maxFrameSize);
          }
          frameLength = length;
          frame = new byte[Math.min(length, Math.max(INITIAL_CAPACITY, available()))];
          frameFilled = 0;
          state = State.FRAME;
        }
        case SKIP -> {
          skipRemaining -= skip(skipRemaining);
          if (skipRemaining > 0) {
            return null;
          }
          state = State.LENGTH;
        }
        case FRAME -> {
          int wanted = Math.min(frameLength - frameFilled, available());
          if (frameFilled + wanted > frame.length) {
            // Geometric growth keeps the copying of a frame that trickles in linear in its size.
            long doubled = Math.min((long) frame.length * 2, frameLength);
            frame = Arrays.copyOf(frame, (int) Math.max(doubled, frameFilled + wanted));
          }
          frameFilled += take(frame, frameFilled, wanted);
          if (frameFilled < frameLength) {
            return null;
          }
          byte[] complete = frame;
          frame = null;
          state = State.LENGTH;
          return decode(complete);
        }
      }
    }
  }

  /** Declares the end of the stream. */
  public void finish() {
    if (failure != null) {
      throw failure;
    }
    long buffered = input.stream().mapToLong(ByteBuffer::remaining).sum();
    switch (state) {
      case LENGTH -> {
        if (lengthFilled + buffered > 0) {
          throw new TruncatedFrameException(lengthFilled + buffered, MessageCodec.LENGTH_BYTES);
        }
      }
      case FRAME -> throw new TruncatedFrameException(frameFilled + buffered, frameLength);
      case SKIP -> throw new TruncatedFrameException(buffered, skipRemaining);
    }
  }

  private Envelope decode(byte[] frame) {
    ByteBuffer in = ByteBuffer.wrap(frame);
    int framedAs = in.get() & 0xff;
    int typeCode = in.get() & 0xff;
    int flags = in.get() & 0xff;
    long correlationId = in.getLong();
    MessageType type = MessageType.fromCode(typeCode);
    boolean hello = type == MessageType.HANDSHAKE;
    if (framedAs != version && !hello) {
      throw new UnsupportedProtocolVersionException(framedAs, version, correlationId);
    }
    if (type == null) {
      throw new UnknownMessageTypeException(typeCode, correlationId);
    }
    if ((flags & ~MessageCodec.FLAG_RESPONSE) != 0) {
      throw new MalformedMessageException("unknown flags " + Integer.toBinaryString(flags) + " on a " + type + " frame", correlationId);
    }
    try {
      // The frame array is this call's alone from now on: large values may stay in it instead of being copied.
      Message message = hello && framedAs < MessageCodec.HELLO_FRAMING
          ? MessageCodec.decodeLegacyHello(in.slice())
          : MessageCodec.decodePayload(type, in.slice(), true, framedAs);
      return new Envelope(correlationId, (flags & MessageCodec.FLAG_RESPONSE) != 0, message);
    } catch (MalformedMessageException e) {
      throw new MalformedMessageException(e.getMessage(), correlationId);
    }
  }

  private int available() {
    long sum = 0;
    for (ByteBuffer b : input) {
      sum += b.remaining();
    }
    return (int) Math.min(sum, Integer.MAX_VALUE);
  }

  private int take(byte[] into, int offset, int wanted) {
    int copied = 0;
    while (copied < wanted && !input.isEmpty()) {
      ByteBuffer head = input.peekFirst();
      int n = Math.min(wanted - copied, head.remaining());
      head.get(into, offset + copied, n);
      copied += n;
      if (!head.hasRemaining()) {
        input.pollFirst();
      }
    }
    return copied;
  }

  private long skip(long wanted) {
    long skipped = 0;
    while (skipped < wanted && !input.isEmpty()) {
      ByteBuffer head = input.peekFirst();
      int n = (int) Math.min(wanted - skipped, head.remaining());
      head.position(head.position() + n);
      skipped += n;
      if (!head.hasRemaining()) {
        input.pollFirst();
      }
    }
    return skipped;
  }
}
