package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.testing.MembershipContract;
import io.tandem.core.testing.MembershipFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Hazelcast membership keeps the membership contract, with real members on loopback. */
class HazelcastMembershipContractTest extends MembershipContract {
  @Override
  protected MembershipFixture newFixture() {
    return new HazelcastMembershipFixture(List.of(A, B, C));
  }

  /**
   * A member restarted under its node id and address before the others' failure detectors dropped it is another run:
   * the others see a new view in which it has another incarnation, so an engine knows it came back without the
   * sessions it owned (docs/protocol.md 11.3.5).
   */
  @Test
  void restartedMember_underTheSameIdAndAddress_isAnotherRunInANewView() throws Exception {
    Membership a = started(A);
    Membership b = started(B);
    await().atMost(patience()).until(() -> a.currentView().contains(B) && b.currentView().contains(A));
    MembershipView before = a.currentView();
    long firstRun = before.member(B).orElseThrow().incarnation();

    fixture().kill(B); // no goodbye, and back at once: as a crashed Tomcat restarted by its service manager
    Membership again = started(B);
    await().atMost(patience()).until(() -> again.currentView().contains(A)
        && a.currentView().member(B).map(m -> m.incarnation() != firstRun).orElse(false));

    MembershipView after = a.currentView();
    assertThat(after.viewId()).isGreaterThan(before.viewId());
    assertThat(after.restartedSince(before, B)).isTrue();
    assertThat(after.restartedSince(before, A)).isFalse();
  }

  /** Joins and graceful leaves show within a second; the margin is for a loaded build machine. */
  @Override
  protected Duration patience() {
    return Duration.ofSeconds(10);
  }
}
