package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
  private static final int MAX = 64 * 1024;

  private static byte[] frame(long correlationId, Message message) {
    return MessageCodec.encodeToBytes(new Envelope(correlationId, false, message));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static List<Envelope> drain(FrameDecoder decoder) {
    List<Envelope> out = new ArrayList<>();
    Envelope e;
    while ((e = decoder.next()) != null) {
      out.add(e);
    }
    return out;
  }

  @Test
  void next_everyMessageFedOneByteAtATime_decodesInOrder() {
    List<Message> messages = SampleMessages.all();
    byte[][] frames = new byte[messages.size()][];
    for (int i = 0; i < messages.size(); i++) {
      frames[i] = frame(i, messages.get(i));
    }
    byte[] stream = concat(frames);
    FrameDecoder decoder = new FrameDecoder(MAX);
    List<Envelope> decoded = new ArrayList<>();

    for (byte b : stream) {
      decoder.feed(ByteBuffer.wrap(new byte[] {b}));
      decoded.addAll(drain(decoder));
    }
    decoder.finish();

    assertThat(decoded).extracting(Envelope::message).containsExactlyElementsOf(messages);
    assertThat(decoded).extracting(Envelope::correlationId).startsWith(0L, 1L, 2L);
  }

  @Test
  void next_twoFramesSplitAtEveryPosition_decodeBoth() {
    byte[] stream = concat(frame(1, new Message.Locate("a")), frame(2, new Message.Ack(3, 4)));
    for (int split = 0; split <= stream.length; split++) {
      FrameDecoder decoder = new FrameDecoder(MAX);
      decoder.feed(ByteBuffer.wrap(stream, 0, split));
      List<Envelope> decoded = new ArrayList<>(drain(decoder));
      decoder.feed(ByteBuffer.wrap(stream, split, stream.length - split));
      decoded.addAll(drain(decoder));

      assertThat(decoded).extracting(Envelope::message).containsExactly(new Message.Locate("a"), new Message.Ack(3, 4));
    }
  }

  @Test
  void next_oversizedFrame_isReportedSkippedAndTheNextFrameDecodes() {
    byte[] big = frame(1, new Message.Locate("x".repeat(MAX)));
    byte[] good = frame(2, new Message.Ack(1, 1));
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.wrap(concat(big, good)));

    assertThatThrownBy(decoder::next).isInstanceOf(OversizedFrameException.class).hasMessageContaining("exceeds the maximum frame size of 65536");
    assertThat(decoder.next()).isEqualTo(new Envelope(2, false, new Message.Ack(1, 1)));
  }

  @Test
  void next_unknownTypeOrVersionOrFlags_areSkippedWithTheirCorrelationId() {
    byte[] unknownType = frame(7, new Message.Ack(1, 1));
    unknownType[5] = (byte) 200;
    byte[] otherVersion = frame(8, new Message.Ack(1, 1));
    otherVersion[4] = 9;
    byte[] badFlags = frame(9, new Message.Ack(1, 1));
    badFlags[6] = (byte) 0x80;
    byte[] good = frame(10, new Message.Ack(2, 2));
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.wrap(concat(unknownType, otherVersion, badFlags, good)));

    assertThatThrownBy(decoder::next)
        .isInstanceOfSatisfying(UnknownMessageTypeException.class, e -> assertThat(e.correlationId()).isEqualTo(7))
        .hasMessageContaining("200");
    assertThatThrownBy(decoder::next)
        .isInstanceOfSatisfying(UnsupportedProtocolVersionException.class, e -> assertThat(e.version()).isEqualTo(9))
        .hasMessageContaining("protocol version 9");
    assertThatThrownBy(decoder::next)
        .isInstanceOfSatisfying(MalformedMessageException.class, e -> assertThat(e.correlationId()).isEqualTo(9));
    assertThat(decoder.next()).isEqualTo(new Envelope(10, false, new Message.Ack(2, 2)));
  }

  @Test
  void next_malformedPayload_isSkippedAndTheNextFrameDecodes() {
    byte[] bad = frame(3, new Message.Locate("abc"));
    bad[15 + 3] = 9; // the string length now claims more bytes than the payload holds
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.wrap(concat(bad, frame(4, new Message.Locate("ok")))));

    assertThatThrownBy(decoder::next).isInstanceOf(MalformedMessageException.class);
    assertThat(decoder.next().message()).isEqualTo(new Message.Locate("ok"));
  }

  @Test
  void next_lengthShorterThanHeader_failsThisAndEveryLaterCall() {
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.wrap(concat(new byte[] {0, 0, 0, 3, 1, 2, 3}, frame(1, new Message.Ack(1, 1)))));

    assertThatThrownBy(decoder::next).isInstanceOf(CorruptFrameException.class).hasMessageContaining("frame length 3");
    assertThatThrownBy(decoder::next).isInstanceOf(CorruptFrameException.class);
    assertThatThrownBy(decoder::finish).isInstanceOf(CorruptFrameException.class);
  }

  @Test
  void finish_midFrame_isTruncated() {
    byte[] f = frame(1, new Message.Locate("abc"));
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(ByteBuffer.wrap(f, 0, f.length - 1));

    assertThat(decoder.next()).isNull();
    assertThatThrownBy(decoder::finish).isInstanceOf(TruncatedFrameException.class).hasMessageContaining("1 bytes short");
  }

  @Test
  void next_hugeDeclaredFrames_neverAllocateBeyondTheMaximum() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    FrameDecoder decoder = new FrameDecoder(MAX);
    byte[] chunk = new byte[64 * 1024];
    long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    int oversized = 0;
    for (int frame = 0; frame < 4; frame++) {
      // Declares a frame of ~2 GiB, then streams 4 MiB of it.
      decoder.feed(ByteBuffer.wrap(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0}));
      try {
        decoder.next();
      } catch (OversizedFrameException e) {
        oversized++;
      }
      for (int i = 0; i < 64; i++) {
        decoder.feed(ByteBuffer.wrap(chunk));
        assertThat(decoder.next()).isNull();
      }
      decoder = new FrameDecoder(MAX);
    }
    long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;

    assertThat(oversized).isEqualTo(4);
    assertThat(allocated).isLessThan(4L * MAX);
  }

  /** Issue "Hostile network", item 1: a declared length used to be allocated in full before any byte arrived. */
  @Test
  void next_largeDeclaredLengthWithFewBytes_allocatesAsTheBytesArrive() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    List<FrameDecoder> decoders = new ArrayList<>();
    long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    for (int i = 0; i < 20; i++) {
      FrameDecoder decoder = new FrameDecoder(32 << 20);
      decoder.feed(ByteBuffer.wrap(new byte[] {0x01, (byte) 0xff, (byte) 0xff, 0x00, 1, 2, 3, 4, 5, 6, 7, 8}));
      assertThat(decoder.next()).isNull();
      assertThat(decoder.inFrame()).isTrue();
      decoders.add(decoder);
    }
    long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;

    assertThat(allocated).as("20 decoders each declared ~32 MiB").isLessThan(20L * 2 * FrameDecoder.INITIAL_CAPACITY);
  }

  @Test
  void next_frameTricklingInAcrossManyReads_growsToItsExactLengthAndDecodes() {
    Message big = new Message.Locate("y".repeat(300_000));
    byte[] bytes = frame(42, big);
    FrameDecoder decoder = new FrameDecoder(1 << 20);
    Envelope decoded = null;
    for (int offset = 0; offset < bytes.length; offset += 7_001) {
      decoder.feed(ByteBuffer.wrap(bytes, offset, Math.min(7_001, bytes.length - offset)));
      Envelope e = decoder.next();
      if (e != null) {
        decoded = e;
      }
    }

    assertThat(decoded).isEqualTo(new Envelope(42, false, big));
    assertThat(decoder.inFrame()).isFalse();
  }

  @Test
  void maxFrameSize_loweredBeforeAuthentication_refusesALargerFrameThenAcceptsOnceRaised() {
    FrameDecoder decoder = new FrameDecoder(1024);
    byte[] large = frame(1, new Message.Locate("z".repeat(2000)));

    decoder.feed(ByteBuffer.wrap(large));
    assertThatThrownBy(decoder::next).isInstanceOf(OversizedFrameException.class);
    assertThat(decoder.next()).isNull();

    decoder.maxFrameSize(MAX);
    decoder.feed(ByteBuffer.wrap(large));
    assertThat(decoder.next()).isEqualTo(new Envelope(1, false, new Message.Locate("z".repeat(2000))));
  }
}
