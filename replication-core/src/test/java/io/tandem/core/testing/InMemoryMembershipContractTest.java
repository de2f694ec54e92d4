package io.tandem.core.testing;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import java.util.ArrayList;
import java.util.List;

class InMemoryMembershipContractTest extends MembershipContract {
  @Override
  protected Fixture newFixture() {
    InMemoryCluster cluster = new InMemoryCluster();
    List<Membership> started = new ArrayList<>();
    return new Fixture() {
      @Override
      public Membership start(NodeId id, String transportAddress) {
        InMemoryMembership membership = cluster.join(id, transportAddress);
        membership.start();
        started.add(membership);
        return membership;
      }

      @Override
      public void close() {
        started.forEach(Membership::close);
        cluster.close();
      }
    };
  }
}
