package io.tandem.transport.hazelcast;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.MembershipFixture;
import java.util.ArrayList;
import java.util.List;

/** Members of one fresh Hazelcast cluster on loopback; each joins through the ports of those created before it. */
final class HazelcastFixture extends MembershipFixture {
  private final String cluster = "contract-" + System.nanoTime();
  private final List<String> ports = new ArrayList<>();

  @Override
  protected Membership createMembership(NodeId id, String transportAddress) throws Exception {
    int port = ClusterNode.freePort();
    ports.add("127.0.0.1:" + port);
    return new HazelcastMembership(HazelcastMembershipConfig.forLoopback(cluster, id, transportAddress, port, List.copyOf(ports)));
  }

  @Override
  public void kill(NodeId id) {
    ((HazelcastMembership) membership(id)).crash();
  }
}
