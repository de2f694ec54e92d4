package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Protocol version 6 names which refusal a {@code REFUSED} is (docs/protocol.md 3.3); a version-5 peer reads the
 * nack as before, with the reason in the detail only, and one read from it names none.
 */
class TypedRefusalsOnTheWireTest {
  private static final int MAX = 1 << 20;

  @ParameterizedTest
  @EnumSource(Message.Nack.Refusal.class)
  void atVersion6_everyRefusalTravels_alone_andInABulkAnswer_andInAContext(Message.Nack.Refusal refusal) {
    Message.Nack nack = refusal == Message.Nack.Refusal.UNSPECIFIED
        ? new Message.Nack(Message.Nack.Reason.STALE_EPOCH, 3, 7, "owned at epoch 3")
        : Message.Nack.refused(refusal, 2, 9, "why: " + refusal);
    for (Message message : List.of(nack, new Message.BulkRefusals(List.of(new Message.BulkRefusals.Refusal("s", nack))),
        new Message.InContext("/shop", nack))) {
      assertThat(roundTrip(message, 6)).isEqualTo(message);
    }
  }

  @Test
  void atVersion5_theNackIsWrittenAsVersion5Wrote_andReadBackNamingNoRefusal() {
    Message.Nack owned = Message.Nack.refused(Message.Nack.Refusal.OWNER_ALIVE, "session s is owned by n1, which is alive");

    byte[] at5 = MessageCodec.encodeToBytes(new Envelope(1, true, owned), 5);
    byte[] at6 = MessageCodec.encodeToBytes(new Envelope(1, true, owned), 6);

    assertThat(at6.length).as("one byte more: the refusal").isEqualTo(at5.length + 1);
    assertThat(roundTrip(owned, 5)).isEqualTo(new Message.Nack(Message.Nack.Reason.REFUSED, 0, 0, owned.detail()));
  }

  /**
   * A refusal a later release adds reaches a reader that does not know it: the nack is read as a refusal named by its
   * detail only, as from a version-5 peer. It failed the whole frame before, so a new refusal needed a new protocol
   * version (and a frame of a bulk answer lost every other session's answer with it).
   */
  @Test
  void aRefusalOrdinalThisReleaseDoesNotKnow_readsAsUnspecified_withItsDetail() {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, true, Message.Nack.refused(Message.Nack.Refusal.MALFORMED,
        "why, in words")), 6);
    frame[frame.length - 1] = (byte) 200;
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.protocolVersion(6);
    decoder.feed(ByteBuffer.wrap(frame));

    assertThat(decoder.next().message())
        .isEqualTo(new Message.Nack(Message.Nack.Reason.REFUSED, 0, 0, "why, in words", Message.Nack.Refusal.UNSPECIFIED));
  }

  @Test
  void aNackReasonOrdinalNoReleaseDefines_isStillMalformed_naming_it() {
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(1, true, Message.Nack.refused(Message.Nack.Refusal.MALFORMED,
        "x")), 6);
    int reasonAt = frame.length - 1 - ("x".length() + 4) - 8 - 8 - 1; // refusal, detail (length and bytes), version, epoch
    assertThat(frame[reasonAt]).isEqualTo((byte) Message.Nack.Reason.REFUSED.ordinal());
    frame[reasonAt] = (byte) 200;
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.protocolVersion(6);
    decoder.feed(ByteBuffer.wrap(frame));

    assertThatThrownBy(decoder::next).isInstanceOf(MalformedMessageException.class).hasMessageContaining("reason ordinal 200");
  }

  @Test
  void aNackForAnotherReason_namingARefusal_isRefusedAtConstruction() {
    assertThatThrownBy(() -> new Message.Nack(Message.Nack.Reason.STALE_EPOCH, 1, 1, "x",
        Message.Nack.Refusal.BEING_HANDED)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("STALE_EPOCH");
    assertThat(new Message.Nack(Message.Nack.Reason.REFUSED, 0, 0, "from a version-5 peer").refusal())
        .isEqualTo(Message.Nack.Refusal.UNSPECIFIED);
  }

  private static Message roundTrip(Message message, int version) {
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.protocolVersion(version);
    decoder.feed(ByteBuffer.wrap(MessageCodec.encodeToBytes(new Envelope(5, true, message), version)));
    return decoder.next().message();
  }
}
