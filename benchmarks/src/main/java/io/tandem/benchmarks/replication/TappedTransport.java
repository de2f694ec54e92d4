package io.tandem.benchmarks.replication;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.MessageType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The real transport with the taps the benchmark needs: a count of the requests this node handled; the updates it
 * applied (the buddy's denominator); and the frame sizes of the first session delta sent and of its reply (what the
 * floor must move per update). The sizes are measured by encoding those two messages once more, once; every other
 * outgoing call goes straight through at the cost of one volatile read.
 *
 * <p>Updates applied are counted in session versions: every update the owner's engine accepts moves its session's
 * version by one, and an acknowledged full session or delta at version {@code v} means the buddy holds every update
 * up to {@code v}, however many of them the owner's ASYNC queue coalesced into that one message. So the count is
 * the sum over sessions of the highest version acknowledged (each session counted from the first version it
 * arrived at); an owner's accepted updates that never reach it stay visible as a difference.
 *
 * <p>Implementation notes: the handler runs on transport threads; {@code appliedVersions} is a concurrent map
 * updated atomically per session, and {@code applied} grows by what each update added.
 */
final class TappedTransport extends ForwardingTransport {
  private final LongAdder handled = new LongAdder();
  private final LongAdder applied = new LongAdder();
  private final ConcurrentHashMap<String, Long> appliedVersions = new ConcurrentHashMap<>();
  private final AtomicBoolean probed = new AtomicBoolean();
  private volatile int requestFrameBytes = -1;
  private volatile int ackFrameBytes = -1;

  TappedTransport(Transport delegate) {
    super(delegate);
  }

  long handled() {
    return handled.sum();
  }

  /** Session versions this node acknowledged beyond each session's first: the owner's updates it holds. */
  long applied() {
    return applied.sum();
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
  public void start(RequestHandler handler) throws Exception {
    delegate.start((from, request) -> {
      handled.increment();
      return handler.handle(from, request).thenApply(reply -> {
        if (reply instanceof Message.Ack) {
          countApplied(request);
        }
        return reply;
      });
    });
  }

  private void countApplied(Message request) {
    if (request instanceof Message.SessionDelta delta) {
      applied(delta.sessionId(), delta.version());
    } else if (request instanceof Message.FullSession full) {
      applied(full.snapshot().id(), full.snapshot().version());
    } else if (request instanceof Message.BulkTransfer bulk) {
      bulk.sessions().forEach(s -> applied(s.id(), s.version()));
    }
  }

  private void applied(String sessionId, long version) {
    long[] added = new long[1];
    appliedVersions.merge(sessionId, version, (before, now) -> {
      added[0] = Math.max(0, now - before);
      return Math.max(before, now);
    });
    applied.add(added[0]);
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    return probe(message, delegate.request(peer, message));
  }

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message, java.time.Duration timeout) {
    return probe(message, delegate.request(peer, message, timeout));
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return probe(message, delegate.requestBatched(peer, message));
  }

  @Override
  public CompletableFuture<Message> requestBatched(NodeId peer, Message message, java.time.Duration timeout) {
    return probe(message, delegate.requestBatched(peer, message, timeout));
  }

  private CompletableFuture<Message> probe(Message message, CompletableFuture<Message> reply) {
    if (message.type() == MessageType.SESSION_DELTA && !probed.get() && probed.compareAndSet(false, true)) {
      requestFrameBytes = frameBytes(message, false);
      reply.thenAccept(r -> ackFrameBytes = frameBytes(r, true));
    }
    return reply;
  }

  static int frameBytes(Message message, boolean response) {
    return MessageCodec.encode(new Envelope(1, response, message)).remaining();
  }
}
