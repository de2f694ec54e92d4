package io.tandem.benchmarks.replication;

import java.net.InetSocketAddress;
import java.util.Map;

/** One node of a floor variant: {@link FloorOwner} or {@link FloorBuddy} behind the control protocol. */
final class FloorNode implements BenchNode {
  private final FloorOwner owner;
  private final FloorBuddy buddy;

  private FloorNode(FloorOwner owner, FloorBuddy buddy) {
    this.owner = owner;
    this.buddy = buddy;
  }

  static FloorNode owner(int buddyPort, int writers, int requestBytes, int ackBytes, boolean batched) throws Exception {
    return new FloorNode(new FloorOwner(new InetSocketAddress("127.0.0.1", buddyPort), writers, requestBytes, ackBytes,
        batched), null);
  }

  static FloorNode buddy(int port, int writers, int requestBytes, int ackBytes, boolean batched) throws Exception {
    return new FloorNode(null, new FloorBuddy(port, requestBytes, ackBytes, writers, batched));
  }

  @Override
  public Map<String, String> awaitReady() {
    return Map.of();
  }

  @Override
  public void startLoad() {
    if (owner != null) {
      owner.startWriters();
    }
  }

  @Override
  public long updates() {
    return owner != null ? owner.completed() : buddy.handled();
  }

  @Override
  public long failed() {
    return 0;
  }

  @Override
  public Throwable failure() {
    return owner != null ? owner.failure() : buddy.failure();
  }

  @Override
  public Map<String, String> summary() {
    return Map.of();
  }

  @Override
  public void stop() throws Exception {
    if (owner != null) {
      owner.close();
    } else {
      buddy.close();
    }
  }
}
