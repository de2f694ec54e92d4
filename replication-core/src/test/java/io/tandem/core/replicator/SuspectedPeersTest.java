package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ring.BuddyRing;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class SuspectedPeersTest {
  private static final NodeId A = new NodeId("a");
  private static final NodeId B = new NodeId("b");
  private static final NodeId C = new NodeId("c");
  private final SuspectedPeers suspects = new SuspectedPeers();

  private static MembershipView view(long id, NodeId... ids) {
    return new MembershipView(id, Stream.of(ids).map(n -> new Member(n, "h:" + n.value().length())).toList());
  }

  @Test
  void suspect_memberOfTheView_leavesTheRingToTheNextBuddy_butNotTheView() {
    MembershipView view = view(3, A, B, C);
    assertThat(suspects.suspect(B, view)).isTrue();
    assertThat(suspects.suspect(B, view)).as("already suspected").isFalse();
    MembershipView replicating = suspects.withoutSuspects(view);
    assertThat(replicating.memberIds()).containsExactly(A, C);
    assertThat(replicating.viewId()).isEqualTo(3);
    assertThat(BuddyRing.buddyOf(replicating, A)).contains(C);
    assertThat(view.memberIds()).containsExactly(A, B, C);
  }

  @Test
  void suspect_peerNotInTheView_isIgnored() {
    assertThat(suspects.suspect(C, view(1, A, B))).isFalse();
    assertThat(suspects.suspect(C, null)).isFalse();
    assertThat(suspects.isSuspected(C)).isFalse();
  }

  @Test
  void clear_peerConnectedAgain_isBackInTheRing() {
    MembershipView view = view(3, A, B, C);
    suspects.suspect(B, view);
    assertThat(suspects.clear(B)).isTrue();
    assertThat(suspects.clear(B)).isFalse();
    assertThat(suspects.withoutSuspects(view)).isSameAs(view);
  }

  @Test
  void retainMembersOf_viewDroppedTheSuspect_aLaterViewListingItAgainIsANewIncarnationNotASuspect() {
    suspects.suspect(B, view(3, A, B, C));
    suspects.retainMembersOf(null, view(4, A, C));
    assertThat(suspects.all()).isEmpty();
    suspects.retainMembersOf(null, view(5, A, B, C));
    assertThat(suspects.withoutSuspects(view(5, A, B, C)).memberIds()).containsExactly(A, B, C);
  }

  @Test
  void retainMembersOf_viewStillListsTheSuspect_itStaysSuspected() {
    suspects.suspect(B, view(3, A, B, C));
    suspects.retainMembersOf(null, view(4, A, B, C));
    assertThat(suspects.all()).containsExactly(B);
    assertThat(suspects.withoutSuspects(view(4, A, B, C)).memberIds()).isEqualTo(List.of(A, C));
  }

  @Test
  void retainMembersOf_aViewListingTheSuspectAsAnotherRun_endsTheSuspicion() {
    MembershipView before = new MembershipView(3, List.of(new Member(A, "h:a", 1), new Member(B, "h:b", 1)));
    MembershipView restarted = new MembershipView(4, List.of(new Member(A, "h:a", 1), new Member(B, "h:b", 2)));
    suspects.suspect(B, before);

    suspects.retainMembersOf(before, restarted);

    assertThat(suspects.isSuspected(B)).as("the run whose redial was refused is gone; this one was admitted since").isFalse();
    assertThat(suspects.withoutSuspects(restarted)).isSameAs(restarted);
  }

  @Test
  void seenDying_throughTheViewThatDropsIt_untilAViewListsItAgainOrItConnects() {
    suspects.suspect(B, view(3, A, B, C));
    assertThat(suspects.seenDying(B)).isTrue();
    suspects.retainMembersOf(null, view(4, A, C));
    assertThat(suspects.seenDying(B)).as("dropped by the view after its host refused it").isTrue();
    suspects.retainMembersOf(null, view(5, A, B, C));
    assertThat(suspects.seenDying(B)).as("listed again: alive, or a new incarnation").isFalse();

    suspects.suspect(C, view(5, A, B, C));
    suspects.retainMembersOf(null, view(6, A, B));
    suspects.clear(C);
    assertThat(suspects.seenDying(C)).as("it connected again").isFalse();
  }

  @Test
  void seenDying_aMemberTheViewDroppedWithoutARefusal_isNot() {
    suspects.retainMembersOf(null, view(4, A, C));
    assertThat(suspects.seenDying(B)).isFalse();
  }

  @Test
  void seenDying_memoryIsBounded_theOldestIsForgottenFirst() {
    for (int i = 0; i <= SuspectedPeers.DEAD_REMEMBERED; i++) {
      NodeId dead = new NodeId("d" + i);
      suspects.suspect(dead, view(i, A, dead));
      suspects.retainMembersOf(null, view(i, A));
    }
    assertThat(suspects.seenDying(new NodeId("d0"))).isFalse();
    assertThat(suspects.seenDying(new NodeId("d1"))).isTrue();
    assertThat(suspects.seenDying(new NodeId("d" + SuspectedPeers.DEAD_REMEMBERED))).isTrue();
  }
}
