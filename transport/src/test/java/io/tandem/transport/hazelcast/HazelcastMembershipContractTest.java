package io.tandem.transport.hazelcast;

import io.tandem.core.testing.MembershipContract;
import io.tandem.core.testing.MembershipFixture;

/** Core's membership contract against real embedded Hazelcast members on loopback. */
class HazelcastMembershipContractTest extends MembershipContract {
  @Override
  protected MembershipFixture newFixture() {
    return new HazelcastFixture();
  }
}
