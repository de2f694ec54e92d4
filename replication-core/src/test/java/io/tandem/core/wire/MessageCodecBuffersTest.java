package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** How frames are allocated and values kept: exact-size frames on encode, at most one copy of a value on decode. */
class MessageCodecBuffersTest {
  private static final int MAX = 1 << 20;

  static List<Message> messages() {
    return SampleMessages.all();
  }

  private static Blob filled(int size, int value) {
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, (byte) value);
    return Blob.wrap(bytes);
  }

  private static Message.SessionDelta delta(Map<String, Blob> set) {
    return new Message.SessionDelta("s", 1, 1, 2, null, set, Set.of());
  }

  private static Message.SessionDelta decodeThroughFrameDecoder(Message message) {
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.feed(MessageCodec.encode(new Envelope(1, false, message)));
    return (Message.SessionDelta) decoder.next().message();
  }

  @ParameterizedTest
  @MethodSource("messages")
  void encode_everyMessage_allocatesTheFrameAtExactlyItsSize(Message message) {
    ByteBuffer frame = MessageCodec.encode(new Envelope(7, false, message));

    assertThat(frame.position()).isZero();
    assertThat(frame.arrayOffset()).isZero();
    assertThat(frame.remaining()).isEqualTo(frame.array().length);
    assertThat(frame.getInt(0)).isEqualTo(frame.remaining() - MessageCodec.LENGTH_BYTES);
  }

  @Test
  void encode_stringWithLoneSurrogate_isSizedExactlyAndTravelsAsGetBytesDoes() {
    String id = "s-\uD800-ü-\uD83D\uDE00-\uDC00";
    ByteBuffer frame = MessageCodec.encode(new Envelope(1, false, new Message.Locate(id)));

    assertThat(frame.remaining()).isEqualTo(frame.array().length);
    Message decoded = MessageCodec.decodeFrame(frame, MAX).message();
    // As String.getBytes(UTF_8) always sent it: a lone surrogate becomes '?'.
    assertThat(decoded).isEqualTo(new Message.Locate("s-?-ü-\uD83D\uDE00-?"));
  }

  @Test
  void encodeToBytes_isTheFrame() {
    Envelope envelope = new Envelope(3, true, new Message.Ack(1, 2));

    byte[] bytes = MessageCodec.encodeToBytes(envelope);

    assertThat(ByteBuffer.wrap(bytes)).isEqualTo(MessageCodec.encode(envelope));
  }

  @Test
  void frameDecoder_valueLargerThanHalfTheFrame_staysInTheFrameWithoutACopy() {
    Blob big = filled(10_000, 7);
    Blob small = filled(100, 3);

    Message.SessionDelta decoded = decodeThroughFrameDecoder(delta(Map.of("big", big, "small", small)));

    Blob bigDecoded = decoded.set().get("big");
    Blob smallDecoded = decoded.set().get("small");
    assertThat(bigDecoded).isEqualTo(big);
    assertThat(bigDecoded.array().length).isGreaterThan(bigDecoded.size()); // a range of the frame
    assertThat(bigDecoded.array().length).isLessThan(2 * bigDecoded.size()); // which it keeps for < 2x its size
    assertThat(smallDecoded).isEqualTo(small);
    assertThat(smallDecoded.array()).hasSize(smallDecoded.size()); // copied: it would keep 100x its size
  }

  @Test
  void frameDecoder_twoValuesOfHalfTheFrame_areBothCopied() {
    Message.SessionDelta decoded = decodeThroughFrameDecoder(delta(Map.of("a", filled(5_000, 1), "b", filled(5_000, 2))));

    for (Blob value : decoded.set().values()) {
      assertThat(value.array()).hasSize(value.size());
    }
    assertThat(decoded.set()).isEqualTo(Map.of("a", filled(5_000, 1), "b", filled(5_000, 2)));
  }

  @Test
  void decodePayload_callersBuffer_valuesAreCopiedAndUnaffectedByLaterWrites() {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, false, delta(Map.of("big", filled(10_000, 7)))));
    int payloadStart = MessageCodec.LENGTH_BYTES + MessageCodec.HEADER_BYTES;
    ByteBuffer payload = ByteBuffer.wrap(frame, payloadStart, frame.length - payloadStart).slice();

    Message.SessionDelta decoded = (Message.SessionDelta) MessageCodec.decodePayload(MessageType.SESSION_DELTA, payload);
    Arrays.fill(frame, (byte) 0); // the caller reuses its buffer

    assertThat(decoded.set().get("big")).isEqualTo(filled(10_000, 7));
  }

  @Test
  void decodeFrame_fullSession_snapshotKeepsTheDecodedMapWithoutCopyAndItIsReadOnly() {
    SessionSnapshot sent = new SessionSnapshot("s", 1, 2, SessionMetadata.created(0, 60), Map.of("a", filled(3, 1)));

    SessionSnapshot received =
        ((Message.FullSession) MessageCodec.decodeFrame(MessageCodec.encode(new Envelope(1, false, new Message.FullSession(sent))), MAX)
            .message()).snapshot();

    assertThat(received).isEqualTo(sent);
    assertThatThrownBy(() -> received.attributes().put("b", Blob.EMPTY)).isInstanceOf(UnsupportedOperationException.class);
    // Re-wrapping an owned map (as promotion and migration do) does not copy it either.
    assertThat(new SessionSnapshot("t", 2, 3, received.metadata(), received.attributes()).attributes())
        .isSameAs(received.attributes());
  }
}
