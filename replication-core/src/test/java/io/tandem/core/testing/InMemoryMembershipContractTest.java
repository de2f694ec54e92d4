package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-memory membership keeps the membership contract; plus what only the in-memory cluster can do. */
class InMemoryMembershipContractTest extends MembershipContract {
  private InMemoryCluster cluster;

  @Override
  protected MembershipFixture newFixture() {
    cluster = new InMemoryCluster();
    return new MembershipFixture() {
      @Override
      protected Membership createMembership(NodeId id, String transportAddress) {
        return cluster.join(id, transportAddress);
      }

      @Override
      public void kill(NodeId id) {
        cluster.crash(id);
      }

      @Override
      protected void closeResources() {
        cluster.close();
      }
    };
  }

  @Test
  void crashedMemberIsDroppedAndItsListenersHearNothingMore() throws Exception {
    Membership a = started(A);
    Membership b = started(B);
    RecordingListener onB = listen(b);
    await().atMost(patience()).until(() -> onB.last() != null && onB.last().contains(A));

    cluster.crash(B);
    started(C);

    await().atMost(patience()).until(() -> a.currentView().memberIds().equals(List.of(A, C)));
    assertThat(cluster.currentView()).isEqualTo(a.currentView());
    assertThat(onB.views).allSatisfy(view -> assertThat(view.contains(C)).isFalse());
    assertThat(b.currentView().contains(B)).isTrue();
  }

  @Test
  void clusterLeaveAndViewIdsGrow() throws Exception {
    Membership a = started(A);
    long first = a.currentView().viewId();
    started(B);

    cluster.leave(B);

    MembershipView view = ((InMemoryMembership) a).awaitView(v -> !v.contains(B), patience());
    assertThat(view.memberIds()).containsExactly(A);
    assertThat(view.viewId()).isEqualTo(first + 2);
    assertThat(cluster.currentView()).isEqualTo(view);
  }

  @Test
  void memberCanRejoinAfterLeaving() throws Exception {
    started(A);
    Membership b = started(B);
    b.close();

    Membership again = started(B);

    assertThat(again.currentView().memberIds()).containsExactly(A, B);
  }

  @Test
  void throwingListenersAreCounted() throws Exception {
    InMemoryMembership a = (InMemoryMembership) started(A);
    a.addViewListener(
        view -> {
          throw new IllegalStateException("listener failure");
        });

    started(B);

    await().atMost(patience()).until(() -> a.listenerFailures() == 2);
  }
}
