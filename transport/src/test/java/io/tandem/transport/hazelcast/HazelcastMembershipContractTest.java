package io.tandem.transport.hazelcast;

import io.tandem.core.testing.MembershipContract;
import io.tandem.core.testing.MembershipFixture;
import java.time.Duration;
import java.util.List;

/** The Hazelcast membership keeps the membership contract, with real members on loopback. */
class HazelcastMembershipContractTest extends MembershipContract {
  @Override
  protected MembershipFixture newFixture() {
    return new HazelcastMembershipFixture(List.of(A, B, C));
  }

  /** Joins and graceful leaves show within a second; the margin is for a loaded build machine. */
  @Override
  protected Duration patience() {
    return Duration.ofSeconds(10);
  }
}
