package io.tandem.core.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BuddyRingTest {

  private static MembershipView view(long id, List<String> nodes) {
    return new MembershipView(id, nodes.stream().map(n -> new Member(new NodeId(n), "addr-" + n)).toList());
  }

  @Provide
  Arbitrary<List<String>> members() {
    return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(6).set().ofMinSize(2).ofMaxSize(12)
        .map(ArrayList::new);
  }

  @Property
  void withTwoOrMoreMembers_nobodyIsTheirOwnBuddy(@ForAll("members") List<String> nodes) {
    MembershipView v = view(1, nodes);
    for (NodeId id : v.memberIds()) {
      assertThat(BuddyRing.buddyOf(v, id)).isPresent().get().isNotEqualTo(id);
    }
  }

  @Property
  void everyMemberIsExactlyOneMembersBuddy_andPredecessorIsTheInverse(@ForAll("members") List<String> nodes) {
    MembershipView v = view(1, nodes);
    Map<NodeId, NodeId> ring = BuddyRing.buddies(v);

    assertThat(new HashSet<>(ring.values())).isEqualTo(new HashSet<>(v.memberIds()));
    ring.forEach((owner, buddy) -> assertThat(BuddyRing.predecessorOf(v, buddy)).contains(owner));
  }

  @Property
  void ring_doesNotDependOnTheOrderMembersWereListed(@ForAll("members") List<String> nodes, @ForAll long seed) {
    List<String> shuffled = new ArrayList<>(nodes);
    Collections.shuffle(shuffled, new java.util.Random(seed));

    assertThat(BuddyRing.buddies(view(1, shuffled))).isEqualTo(BuddyRing.buddies(view(1, nodes)));
  }

  /** Sessions are (owner, buddy) pairs; after one death only the pairs that contained the dead node change. */
  @Property
  void afterOneDeath_onlySessionsWhoseOwnerOrBuddyDiedMove(
      @ForAll("members") List<String> nodes, @ForAll @IntRange(min = 0, max = 100) int victimIndex) {
    MembershipView before = view(1, nodes);
    NodeId dead = before.memberIds().get(victimIndex % nodes.size());
    List<String> survivors = new ArrayList<>(nodes);
    survivors.remove(dead.value());
    MembershipView after = view(2, survivors);

    for (NodeId owner : after.memberIds()) {
      NodeId buddyBefore = BuddyRing.buddyOf(before, owner).orElseThrow();
      if (!buddyBefore.equals(dead)) {
        assertThat(BuddyRing.buddyOf(after, owner)).as("owner %s kept buddy", owner).contains(buddyBefore);
      }
    }
    Set<NodeId> moved = new HashSet<>();
    for (NodeId owner : after.memberIds()) {
      if (!BuddyRing.buddyOf(after, owner).equals(BuddyRing.buddyOf(before, owner))) {
        moved.add(owner);
      }
    }
    // Exactly one owner (the dead node's predecessor) re-replicates, if anyone is left to replicate to.
    assertThat(moved).hasSizeLessThanOrEqualTo(1);
  }

  @Test
  void buddyOf_aloneOrAbsent_isEmpty() {
    assertThat(BuddyRing.buddyOf(view(1, List.of("a")), new NodeId("a"))).isEmpty();
    assertThat(BuddyRing.buddyOf(view(1, List.of("a", "b")), new NodeId("z"))).isEmpty();
  }

  @Test
  void buddyOf_isTheNextIdWrappingAround() {
    MembershipView v = view(3, List.of("n3", "n1", "n2"));

    assertThat(BuddyRing.buddies(v))
        .containsEntry(new NodeId("n1"), new NodeId("n2"))
        .containsEntry(new NodeId("n2"), new NodeId("n3"))
        .containsEntry(new NodeId("n3"), new NodeId("n1"));
  }

  @Property
  void successorOf_aMember_isItsBuddy(@ForAll("members") List<String> nodes) {
    MembershipView v = view(1, nodes);
    for (NodeId id : v.memberIds()) {
      assertThat(BuddyRing.successorOf(v, id)).isEqualTo(BuddyRing.buddyOf(v, id));
    }
  }

  @Property
  void successorOf_aNodeThatLeft_isTheBuddyItHad_whileThatOneIsStillAMember(
      @ForAll("members") List<String> nodes, @ForAll @IntRange(min = 0, max = 11) int leaving) {
    MembershipView before = view(1, nodes);
    NodeId left = before.memberIds().get(leaving % nodes.size());
    NodeId itsBuddy = BuddyRing.buddyOf(before, left).orElseThrow();
    MembershipView after = view(2, nodes.stream().filter(n -> !n.equals(left.value())).toList());

    assertThat(BuddyRing.successorOf(after, left)).contains(itsBuddy);
  }

  @Test
  void successorOf_wrapsAround_andIsEmptyWithNoOtherMember() {
    assertThat(BuddyRing.successorOf(view(1, List.of("b", "d")), new NodeId("e"))).contains(new NodeId("b"));
    assertThat(BuddyRing.successorOf(view(1, List.of("b", "d")), new NodeId("c"))).contains(new NodeId("d"));
    assertThat(BuddyRing.successorOf(view(1, List.of("b")), new NodeId("b"))).isEmpty();
    assertThat(BuddyRing.successorOf(view(1, List.of("b")), new NodeId("a"))).contains(new NodeId("b"));
  }
}
