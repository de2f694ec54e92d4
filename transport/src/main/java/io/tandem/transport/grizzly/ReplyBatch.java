package io.tandem.transport.grizzly;

import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import java.util.function.IntSupplier;

/**
 * The replies of one read, on the receiving side of a connection: consecutive requests answered with exactly the ack
 * they imply become one {@link Message.AckRange} frame, written when the read ends; every other reply goes out on its
 * own at once. A buddy that read N updates in one read answers with one frame and one write, not N.
 *
 * <p>Implementation notes: owned by the connection's read thread, which alone calls {@link #acknowledged} and {@link
 * #endOfRead} (no synchronization). Replies that complete later on other threads do not come here; they are written
 * on their own.
 */
final class ReplyBatch {
  private final OutboundQueue outbound;
  private final IntSupplier protocolVersion;
  private long lastId;
  private int count;

  /** @param protocolVersion the version the connection speaks, read when a range is written (after the handshake) */
  ReplyBatch(OutboundQueue outbound, IntSupplier protocolVersion) {
    this.outbound = outbound;
    this.protocolVersion = protocolVersion;
  }

  /** Request {@code id} was answered with the ack it implies. */
  void acknowledged(long id) {
    if (count > 0 && id == lastId + 1 && count < Message.AckRange.MAX_COUNT) {
      lastId = id;
      count++;
      return;
    }
    emit();
    lastId = id;
    count = 1;
  }

  /** The read is over: what it acknowledged leaves now, before the read thread waits for more. */
  void endOfRead() {
    emit();
  }

  private void emit() {
    if (count == 0) {
      return;
    }
    outbound.enqueue(MessageCodec.encode(new Envelope(lastId, true, new Message.AckRange(count)), protocolVersion.getAsInt()));
    count = 0;
  }
}
