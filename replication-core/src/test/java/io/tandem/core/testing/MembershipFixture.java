package io.tandem.core.testing;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes members of one fresh cluster for {@link MembershipContract}. An implementation says how to create one
 * (not started) membership; the fixture closes every membership it made, then its own resources.
 *
 * <p>Implementation notes: used from the test thread only; not thread-safe.
 */
public abstract class MembershipFixture implements AutoCloseable {
  private final Map<NodeId, Membership> created = new LinkedHashMap<>();

  /** A new, not yet started membership of this fixture's cluster for {@code id}, advertising {@code address}. */
  protected abstract Membership createMembership(NodeId id, String transportAddress) throws Exception;

  /**
   * Stops {@code id} abruptly, the way a crash would, so that the others drop it from their views. The default
   * closes its membership; override to simulate something harsher.
   */
  public void kill(NodeId id) {
    membership(id).close();
  }

  /** Releases what the fixture holds besides the memberships. */
  protected void closeResources() {}

  /** Creates a member; the test starts it. */
  public final Membership create(NodeId id, String transportAddress) throws Exception {
    Membership membership = createMembership(id, transportAddress);
    created.put(id, membership);
    return membership;
  }

  /** The last membership created for {@code id}. */
  public final Membership membership(NodeId id) {
    Membership membership = created.get(id);
    if (membership == null) {
      throw new IllegalArgumentException("no membership for " + id);
    }
    return membership;
  }

  @Override
  public final void close() {
    try {
      List<Membership> all = new ArrayList<>(created.values());
      for (Membership membership : all) {
        membership.close();
      }
    } finally {
      closeResources();
    }
  }
}
