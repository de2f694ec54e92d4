package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * Fuzzes the frame and payload decoders. In a normal build ({@code ./mvnw verify}) Jazzer replays the committed
 * seeds under {@code src/test/resources/io/tandem/core/wire/FrameDecoderFuzzTestInputs/}; with {@code
 * JAZZER_FUZZ=1} it mutates them for real. Properties: only the decoder's own exceptions escape, no allocation
 * beyond the maximum frame size per frame, and a good frame after a bad one still decodes.
 */
class FrameDecoderFuzzTest {
  private static final int MAX = 64 * 1024;
  private static final Envelope GOOD = new Envelope(99, true, new Message.Ack(7, 8));
  private static final byte[] GOOD_FRAME = MessageCodec.encodeToBytes(GOOD);

  /** The input as the body of one well-framed frame: the decoder must stay in sync for the next one. */
  @FuzzTest(maxDuration = "30s")
  void framedBody_onlyWireExceptions_andTheNextFrameDecodes(byte[] body) {
    if (body.length < MessageCodec.HEADER_BYTES || body.length > MAX - MessageCodec.LENGTH_BYTES) {
      return;
    }
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.allocate(MessageCodec.LENGTH_BYTES).putInt(body.length).flip());
    decoder.feed(ByteBuffer.wrap(body));
    decoder.feed(ByteBuffer.wrap(GOOD_FRAME));
    Envelope last = null;
    for (int i = 0; i < 3; i++) {
      try {
        Envelope e = decoder.next();
        if (e == null) {
          break;
        }
        last = e;
      } catch (CorruptFrameException e) {
        throw new AssertionError("a well-framed body must never lose framing", e);
      } catch (WireException e) {
        // the bad frame is skipped; the loop goes on to the good one
      }
    }
    assertThat(last).isEqualTo(GOOD);
    decoder.finish();
  }

  /** The input as a raw stream in arbitrary chunks: only wire exceptions, bounded allocation. */
  @FuzzTest(maxDuration = "30s")
  void rawStream_onlyWireExceptions_boundedAllocation(FuzzedDataProvider data) {
    java.util.List<byte[]> chunks = new java.util.ArrayList<>();
    long fed = 0;
    while (data.remainingBytes() > 0) {
      byte[] chunk = data.consumeBytes(data.consumeInt(1, 4096));
      chunks.add(chunk);
      fed += chunk.length;
    }
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    decodeAll(chunks); // the first run pays for class loading and instrumentation; the second is measured
    long before = threads.getThreadAllocatedBytes(thread);
    decodeAll(chunks);
    long allocated = threads.getThreadAllocatedBytes(thread) - before;
    // At most one frame buffer per frame, plus decoded messages and exceptions, which scale with the input.
    assertThat(allocated).isLessThan(2L * MAX + 64 * fed + 100_000);
  }

  private static void decodeAll(java.util.List<byte[]> chunks) {
    FrameDecoder decoder = new FrameDecoder(MAX);
    for (byte[] chunk : chunks) {
      decoder.feed(ByteBuffer.wrap(chunk));
      while (true) {
        try {
          if (decoder.next() == null) {
            break;
          }
        } catch (CorruptFrameException e) {
          return;
        } catch (WireException e) {
          // skipped; continue with the next frame
        }
      }
    }
  }

  /** The input as the payload of a message of a chosen type: only MalformedMessageException. */
  @FuzzTest(maxDuration = "30s")
  void payload_onlyMalformedMessageException(FuzzedDataProvider data) {
    MessageType type = data.pickValue(MessageType.values());
    byte[] payload = data.consumeRemainingAsBytes();
    try {
      Message message = MessageCodec.decodePayload(type, ByteBuffer.wrap(payload));
      // Whatever decodes must encode back to the same message.
      Envelope again = MessageCodec.decodeFrame(MessageCodec.encode(new Envelope(1, false, message)), Integer.MAX_VALUE);
      assertThat(again.message()).isEqualTo(message);
    } catch (MalformedMessageException e) {
      // expected for most inputs
    }
  }
}
