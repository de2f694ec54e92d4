package io.tandem.benchmarks;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A transport that runs the peer's handler on the calling thread, with every request and reply encoded to a real
 * frame and decoded again, so a benchmark measures serialization, framing and the backup's apply with no
 * network noise. Counts the bytes that would have crossed the wire.
 */
final class LoopbackTransport implements Transport {
  private static final int MAX_FRAME = 64 << 20;
  private final NodeId local;
  private final Map<NodeId, LoopbackTransport> peers;
  private final LongAdder wireBytes;
  private volatile RequestHandler handler;
  private long correlation;

  LoopbackTransport(NodeId local, Map<NodeId, LoopbackTransport> peers, LongAdder wireBytes) {
    this.local = local;
    this.peers = peers;
    this.wireBytes = wireBytes;
    peers.put(local, this);
  }

  static Map<NodeId, LoopbackTransport> network() {
    return new ConcurrentHashMap<>();
  }

  @Override
  public NodeId localNode() {
    return local;
  }

  @Override
  public String localAddress() {
    return "loopback:" + local.value();
  }

  @Override
  public void start(RequestHandler handler) {
    this.handler = handler;
  }

  @Override
  public void updatePeers(MembershipView view) {}

  @Override
  public CompletableFuture<Message> request(NodeId peer, Message message) {
    LoopbackTransport target = peers.get(peer);
    if (target == null || target.handler == null) {
      return CompletableFuture.failedFuture(new PeerUnreachableException(peer, "not on the loopback network"));
    }
    long id;
    synchronized (this) {
      id = ++correlation;
    }
    Message received = transit(new Envelope(id, false, message));
    Message reply = target.handler.handle(local, received).toCompletableFuture().join();
    return CompletableFuture.completedFuture(transit(new Envelope(id, true, reply)));
  }

  private Message transit(Envelope envelope) {
    ByteBuffer frame = MessageCodec.encode(envelope);
    wireBytes.add(frame.remaining());
    return MessageCodec.decodeFrame(frame, MAX_FRAME).message();
  }

  @Override
  public void close() {
    peers.remove(local, this);
  }
}
