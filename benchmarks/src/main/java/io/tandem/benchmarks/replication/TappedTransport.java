package io.tandem.benchmarks.replication;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.MessageType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The real transport with two taps the benchmark needs: a count of the requests this node handled (the buddy's
 * denominator), and the frame sizes of the first session delta sent and of its reply (what the floor must move per
 * update). The sizes are measured by encoding those two messages once more, once; every other call goes straight
 * through at the cost of one volatile read.
 */
final class TappedTransport implements Transport {
  private final Transport delegate;
  private final LongAdder handled = new LongAdder();
  private final AtomicBoolean probed = new AtomicBoolean();
  private volatile int requestFrameBytes = -1;
  private volatile int ackFrameBytes = -1;

  TappedTransport(Transport delegate) {
    this.delegate = delegate;
  }

  long handled() {
    return handled.sum();
  }

  /** Bytes of the first session-delta frame sent, length prefix included; -1 before one was sent. */
  int requestFrameBytes() {
    return requestFrameBytes;
  }

  /** Bytes of the reply frame to it; -1 before it arrived. */
  int ackFrameBytes() {
    return ackFrameBytes;
  }

  @Override
  public NodeId localNode() {
    return delegate.localNode();
  }

  @Override
  public String localAddress() {
    return delegate.localAddress();
  }

  @Override
  public void start(RequestHandler handler) throws Exception {
    delegate.start((from, request) -> {
      handled.increment();
      return handler.handle(from, request);
    });
  }

  @Override
  public void updatePeers(MembershipView view) {
    delegate.updatePeers(view);
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    CompletableFuture<Message> reply = delegate.request(peer, message);
    if (message.type() == MessageType.SESSION_DELTA && !probed.get() && probed.compareAndSet(false, true)) {
      requestFrameBytes = frameBytes(message, false);
      reply.thenAccept(r -> ackFrameBytes = frameBytes(r, true));
    }
    return reply;
  }

  static int frameBytes(Message message, boolean response) {
    return MessageCodec.encode(new Envelope(1, response, message)).remaining();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
