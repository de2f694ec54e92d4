package io.tandem.benchmarks.replication;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.wire.Message;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The bytes one replicated update puts on the wire each way, length prefix included: what the floors move.
 *
 * @param requestBytes the owner's frame (a session delta carrying the attribute)
 * @param ackBytes the buddy's reply frame
 * @param source {@code measured} (the Tandem variant's first delta and its ack, this run) or {@code computed} (the
 *     wire format applied to the same update, when Tandem did not run first)
 */
record FrameSizes(int requestBytes, int ackBytes, String source) {

  FrameSizes {
    if (requestBytes < FloorFrames.MIN_FRAME_BYTES || ackBytes < FloorFrames.MIN_FRAME_BYTES) {
      throw new IllegalArgumentException("frames of " + requestBytes + " and " + ackBytes + " bytes (at least "
          + FloorFrames.MIN_FRAME_BYTES + ")");
    }
  }

  /** The sizes of the update the Tandem variant sends, computed with the real codec and wire format. */
  static FrameSizes computed(int attributeBytes) {
    ReplicationConfig config = ReplicationConfig.builder().build();
    AttributeCodec codec = AttributeCodecs.create(config.codec(), ClassFilter.defaultsOnly(), config.codecLimits());
    Message.SessionDelta delta = new Message.SessionDelta(String.format(Locale.ROOT, "%032X", 0xB0B0_0000L), 1, 1, 2,
        SessionMetadata.created(System.currentTimeMillis(), 1800),
        Map.of(WriterSession.ATTRIBUTE, codec.encode(WriterSession.value(attributeBytes, 'a', 0))), Set.of());
    return new FrameSizes(TappedTransport.frameBytes(delta, false), TappedTransport.frameBytes(new Message.Ack(1, 2), true),
        "computed");
  }
}
