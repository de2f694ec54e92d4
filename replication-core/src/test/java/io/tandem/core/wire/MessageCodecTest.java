package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MessageCodecTest {
  private static final int MAX = 1 << 20;

  static java.util.List<Message> messages() {
    return SampleMessages.all();
  }

  @Test
  void samples_coverEveryMessageType() {
    Set<MessageType> covered = SampleMessages.all().stream().map(Message::type).collect(Collectors.toSet());
    assertThat(covered).isEqualTo(EnumSet.allOf(MessageType.class));
  }

  @ParameterizedTest
  @MethodSource("messages")
  void encodeThenDecode_givesTheSameMessage(Message message) {
    Envelope envelope = new Envelope(42, message instanceof Message.Ack, message);

    Envelope decoded = MessageCodec.decodeFrame(MessageCodec.encode(envelope), MAX);

    assertThat(decoded).isEqualTo(envelope);
  }

  @ParameterizedTest
  @MethodSource("messages")
  void decodePayload_everyTruncation_isMalformedNeverAnotherException(Message message) {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, false, message));
    int payloadStart = MessageCodec.LENGTH_BYTES + MessageCodec.HEADER_BYTES;
    for (int cut = payloadStart; cut < frame.length; cut++) {
      ByteBuffer payload = ByteBuffer.wrap(frame, payloadStart, cut - payloadStart).slice();
      assertThatThrownBy(() -> MessageCodec.decodePayload(message.type(), payload))
          .isInstanceOf(MalformedMessageException.class);
    }
  }

  @Test
  void snapshotBytes_isWhatTheSnapshotTakesInAFullSessionFrame_andTheSumOfItsParts() {
    io.tandem.core.session.SessionSnapshot snapshot = new io.tandem.core.session.SessionSnapshot("s-ünï", 3, 17,
        SampleMessages.snapshot("x").metadata(), java.util.Map.of("cart", SampleMessages.blob("book,pen"),
            "nämé", SampleMessages.blob("alice"), "empty", io.tandem.core.session.Blob.EMPTY));

    long frame = MessageCodec.encodeToBytes(new Envelope(1, false, new Message.FullSession(snapshot))).length;
    long parts = MessageCodec.snapshotHeadBytes(snapshot.id(), snapshot.metadata())
        + snapshot.attributes().entrySet().stream().mapToLong(e -> MessageCodec.attributeBytes(e.getKey(), e.getValue())).sum();

    assertThat(MessageCodec.snapshotBytes(snapshot)).isEqualTo(frame - MessageCodec.LENGTH_BYTES - MessageCodec.HEADER_BYTES)
        .isEqualTo(parts);
  }

  @Test
  void decodePayload_inContextCarryingAContextsMessage_isMalformedNamingTheType() {
    byte[] inner = MessageCodec.encodeToBytes(new Envelope(1, false, new Message.InContext("/a", new Message.Locate("s"))));
    ByteBuffer payload = ByteBuffer.wrap(inner, 15, inner.length - 15).slice();
    // "/a" is 4 + 2 bytes, then the inner type byte: make it CONTEXTS.
    payload.put(6, (byte) MessageType.CONTEXTS.code());

    assertThatThrownBy(() -> MessageCodec.decodePayload(MessageType.IN_CONTEXT, payload))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("CONTEXTS");
  }

  @Test
  void inContext_contextNameOverTheLimit_isRefusedAtConstruction() {
    String tooLong = "/" + "x".repeat(Message.InContext.MAX_CONTEXT_BYTES);

    assertThatThrownBy(() -> new Message.InContext(tooLong, new Message.Locate("s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Integer.toString(Message.InContext.MAX_CONTEXT_BYTES));
  }

  @Test
  void decodePayload_trailingBytes_isMalformed() {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, false, new Message.Ack(1, 2)));
    ByteBuffer payload = ByteBuffer.allocate(frame.length - 15 + 1).put(frame, 15, frame.length - 15).put((byte) 0).flip();

    assertThatThrownBy(() -> MessageCodec.decodePayload(MessageType.ACK, payload))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("trailing");
  }

  @Test
  void decodePayload_deltaWithBaseNotBelowVersion_isMalformedNamingTheRule() {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, false, new Message.SessionDelta("s", 1, 4, 5, null, java.util.Map.of(), Set.of())));
    ByteBuffer buffer = ByteBuffer.wrap(frame);
    // sessionId "s" is 4 + 1 bytes, then epoch; overwrite baseVersion with 9 (> version 5).
    buffer.putLong(15 + 5 + 8, 9);
    ByteBuffer payload = ByteBuffer.wrap(frame, 15, frame.length - 15).slice();

    assertThatThrownBy(() -> MessageCodec.decodePayload(MessageType.SESSION_DELTA, payload))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("baseVersion 9 must be < version 5");
  }

  @Test
  void decodePayload_hugeDeclaredStringLength_failsWithoutAllocating() {
    ByteBuffer payload = ByteBuffer.allocate(8).putInt(Integer.MAX_VALUE).putInt(0).flip();

    assertThatThrownBy(() -> MessageCodec.decodePayload(MessageType.LOCATE, payload))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("needs 2147483647 bytes");
  }
}
