package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Membership} contract as tests, so that every membership (in-memory, Hazelcast) gives the engine the
 * same view semantics. A membership module extends this class and implements {@link #newFixture}.
 */
public abstract class MembershipContract {
  protected static final NodeId A = NodeId.of("a");
  protected static final NodeId B = NodeId.of("b");
  protected static final NodeId C = NodeId.of("c");

  private MembershipFixture fixture;

  /** A fresh fixture, whose members form one new cluster; it is closed after the test. */
  protected abstract MembershipFixture newFixture() throws Exception;

  /** How long a test waits for views to converge. A membership with real failure detection may raise it. */
  protected Duration patience() {
    return Duration.ofSeconds(5);
  }

  protected final MembershipFixture fixture() {
    return fixture;
  }

  @BeforeEach
  protected void createFixture() throws Exception {
    fixture = newFixture();
  }

  @AfterEach
  protected void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  protected void startedMemberSeesItselfWithItsAddress() throws Exception {
    Membership a = started(A);

    assertThat(a.localNode()).isEqualTo(A);
    assertThat(a.currentView().member(A).map(MembershipContract::withoutRun)).contains(new Member(A, address(A)));
    RecordingListener listener = new RecordingListener();
    a.addViewListener(listener);
    await().atMost(patience()).until(() -> listener.last() != null && listener.last().contains(A));
  }

  @Test
  protected void joiningMemberIsSeenByBothWithTheSameViewId() throws Exception {
    Membership a = started(A);
    RecordingListener onA = listen(a);
    Membership b = started(B);
    RecordingListener onB = listen(b);

    await()
        .atMost(patience())
        .untilAsserted(
            () -> {
              assertThat(a.currentView().memberIds()).containsExactly(A, B);
              assertThat(b.currentView()).isEqualTo(a.currentView());
              assertThat(onA.last()).isEqualTo(a.currentView());
              assertThat(onB.last()).isEqualTo(a.currentView());
            });
    assertThat(a.currentView().member(B).map(MembershipContract::withoutRun)).contains(new Member(B, address(B)));
  }

  @Test
  protected void viewsArriveInIncreasingOrder() throws Exception {
    Membership a = started(A);
    RecordingListener onA = listen(a);
    started(B);
    started(C);
    fixture.membership(B).close();

    await().atMost(patience()).until(() -> onA.last() != null && onA.last().memberIds().equals(List.of(A, C)));
    List<Long> ids = onA.views.stream().map(MembershipView::viewId).toList();
    assertThat(ids).isSorted().doesNotHaveDuplicates();
  }

  @Test
  protected void leavingMemberDisappearsFromTheOthersViews() throws Exception {
    Membership a = started(A);
    Membership b = started(B);
    RecordingListener onA = listen(a);
    await().atMost(patience()).until(() -> a.currentView().contains(B));

    b.close();
    b.close();

    await()
        .atMost(patience())
        .untilAsserted(
            () -> {
              assertThat(a.currentView().memberIds()).containsExactly(A);
              assertThat(onA.last().memberIds()).containsExactly(A);
            });
  }

  @Test
  protected void killedMemberDisappearsFromTheOthersViews() throws Exception {
    Membership a = started(A);
    started(B);
    await().atMost(patience()).until(() -> a.currentView().contains(B));

    fixture.kill(B);

    await().atMost(patience()).until(() -> !a.currentView().contains(B));
  }

  @Test
  protected void lateListenerGetsTheCurrentViewFirst() throws Exception {
    Membership a = started(A);
    started(B);
    await().atMost(patience()).until(() -> a.currentView().contains(B));
    MembershipView current = a.currentView();

    RecordingListener late = listen(a);

    await().atMost(patience()).until(() -> !late.views.isEmpty());
    assertThat(late.views.get(0)).isEqualTo(current);
  }

  @Test
  protected void throwingListenerStillGetsLaterViews() throws Exception {
    Membership a = started(A);
    RecordingListener recording = new RecordingListener();
    a.addViewListener(
        view -> {
          recording.viewChanged(view);
          throw new IllegalStateException("listener failure");
        });
    RecordingListener other = listen(a);

    started(B);
    started(C);

    await()
        .atMost(patience())
        .untilAsserted(
            () -> {
              assertThat(recording.last().memberIds()).containsExactly(A, B, C);
              assertThat(other.last().memberIds()).containsExactly(A, B, C);
            });
  }

  @Test
  protected void listenersAreNeverCalledConcurrently() throws Exception {
    Membership a = started(A);
    AtomicInteger active = new AtomicInteger();
    AtomicInteger maxActive = new AtomicInteger();
    RecordingListener recording = new RecordingListener();
    for (int i = 0; i < 3; i++) {
      a.addViewListener(
          view -> {
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
            while (System.nanoTime() < until) {
              Thread.onSpinWait();
            }
            active.decrementAndGet();
            recording.viewChanged(view);
          });
    }

    started(B);
    started(C);
    fixture.membership(C).close();

    await()
        .atMost(patience())
        .until(() -> recording.last() != null && recording.last().memberIds().equals(List.of(A, B)));
    assertThat(maxActive).hasValue(1);
  }

  // ---- helpers for subclasses ----

  /** The transport address a test member advertises. */
  /** The member without its run: which run a member is depends on the service (see {@link Member#incarnation}). */
  protected static Member withoutRun(Member member) {
    return new Member(member.id(), member.transportAddress());
  }

  protected static String address(NodeId id) {
    return "test://" + id;
  }

  /** Creates and starts a member; its view contains itself once this returns. */
  protected final Membership started(NodeId id) throws Exception {
    Membership membership = fixture.create(id, address(id));
    membership.start();
    assertThat(membership.currentView().contains(id)).as("view after start contains %s", id).isTrue();
    return membership;
  }

  protected static RecordingListener listen(Membership membership) {
    RecordingListener listener = new RecordingListener();
    membership.addViewListener(listener);
    return listener;
  }

  /** Keeps every view it is given. */
  protected static final class RecordingListener implements Membership.ViewListener {
    public final List<MembershipView> views = new CopyOnWriteArrayList<>();

    @Override
    public void viewChanged(MembershipView view) {
      views.add(view);
    }

    /** The latest view received, or null. */
    public MembershipView last() {
      return views.isEmpty() ? null : views.get(views.size() - 1);
    }
  }
}
