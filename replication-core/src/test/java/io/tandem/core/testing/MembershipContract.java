package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What every {@link Membership} must do. A module with a membership extends this class and supplies a fixture. */
public abstract class MembershipContract {
  protected static final Duration WAIT = Duration.ofSeconds(60);

  /** Creates memberships of one cluster; closes everything it created. */
  public interface Fixture extends AutoCloseable {
    /** A started membership for {@code id}, advertising {@code transportAddress}. */
    Membership start(NodeId id, String transportAddress) throws Exception;

    @Override
    void close();
  }

  protected abstract Fixture newFixture() throws Exception;

  private Fixture fixture;

  private Fixture fixture() throws Exception {
    if (fixture == null) {
      fixture = newFixture();
    }
    return fixture;
  }

  @AfterEach
  void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private static final NodeId A = new NodeId("a");
  private static final NodeId B = new NodeId("b");

  @Test
  void start_viewContainsSelfWithItsAddress() throws Exception {
    Membership a = fixture().start(A, "addr-a");

    assertThat(a.currentView().contains(A)).isTrue();
    assertThat(a.currentView().member(A).orElseThrow().transportAddress()).isEqualTo("addr-a");
  }

  @Test
  void secondMember_bothAgreeOnTheView_andViewsArriveInIncreasingOrder() throws Exception {
    Membership a = fixture().start(A, "addr-a");
    List<MembershipView> seenByA = new CopyOnWriteArrayList<>();
    a.addViewListener(seenByA::add);

    Membership b = fixture().start(B, "addr-b");

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(a.currentView().memberIds()).containsExactly(A, B);
      assertThat(b.currentView()).isEqualTo(a.currentView());
      assertThat(seenByA).last().isEqualTo(a.currentView());
    });
    assertThat(seenByA).extracting(MembershipView::viewId).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void leave_othersSeeAViewWithoutTheMember() throws Exception {
    Membership a = fixture().start(A, "addr-a");
    Membership b = fixture().start(B, "addr-b");
    await().atMost(WAIT).until(() -> a.currentView().contains(B));

    b.close();

    await().atMost(WAIT).until(() -> !a.currentView().contains(B));
  }

  @Test
  void lateListener_getsTheCurrentViewFirst() throws Exception {
    Membership a = fixture().start(A, "addr-a");
    List<MembershipView> seen = new CopyOnWriteArrayList<>();

    a.addViewListener(seen::add);

    await().atMost(WAIT).untilAsserted(() -> assertThat(seen).first().satisfies(v -> assertThat(v.contains(A)).isTrue()));
  }

  @Test
  void throwingListener_doesNotStopLaterViews() throws Exception {
    Membership a = fixture().start(A, "addr-a");
    List<MembershipView> seen = new CopyOnWriteArrayList<>();
    a.addViewListener(v -> {
      throw new IllegalStateException("listener bug");
    });
    a.addViewListener(seen::add);

    fixture().start(B, "addr-b");

    await().atMost(WAIT).until(() -> !seen.isEmpty() && seen.get(seen.size() - 1).contains(B));
  }
}
