package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Agreed membership for tests: one authority numbers the views and tells every live member, in order. A crashed
 * member silently drops out of the others' views and hears nothing more.
 *
 * <p>Implementation notes: all state is guarded by {@code this}; views are handed to each member's own dispatcher
 * thread while holding the lock, so every member receives them in view-id order.
 */
public final class InMemoryCluster implements AutoCloseable {
  private final Map<NodeId, InMemoryMembership> joined = new LinkedHashMap<>();
  private final Map<NodeId, Member> live = new TreeMap<>();
  private long viewId;
  private MembershipView current = new MembershipView(0, List.of());

  /** A membership for the node; it becomes a member when the membership is started. */
  public synchronized InMemoryMembership join(NodeId id, String transportAddress) {
    InMemoryMembership membership = new InMemoryMembership(this, new Member(id, transportAddress));
    joined.put(id, membership);
    return membership;
  }

  synchronized void start(InMemoryMembership membership) {
    joined.put(membership.localNode(), membership);
    live.put(membership.localNode(), membership.self());
    publish();
  }

  /** Graceful leave. */
  synchronized void leave(NodeId id) {
    joined.remove(id);
    if (live.remove(id) != null) {
      publish();
    }
  }

  /** The node vanishes from everyone else's view; it is told nothing. */
  public synchronized void crash(NodeId id) {
    InMemoryMembership membership = joined.remove(id);
    if (membership != null) {
      membership.silence();
    }
    if (live.remove(id) != null) {
      publish();
    }
  }

  public synchronized MembershipView currentView() {
    return current;
  }

  private void publish() {
    current = new MembershipView(++viewId, List.copyOf(live.values()));
    for (InMemoryMembership membership : joined.values()) {
      if (live.containsKey(membership.localNode())) {
        membership.deliver(current);
      }
    }
  }

  @Override
  public synchronized void close() {
    joined.values().forEach(InMemoryMembership::silence);
    joined.clear();
    live.clear();
  }
}
