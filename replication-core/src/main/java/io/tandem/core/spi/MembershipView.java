package io.tandem.core.spi;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One agreed membership view. Views are numbered; a higher number is a later view. Members are kept sorted by
 * node id so that every node derives the same ring from the same view.
 */
public record MembershipView(long viewId, List<Member> members) {
  public MembershipView {
    if (viewId < 0) {
      throw new IllegalArgumentException("viewId must be >= 0, got " + viewId);
    }
    members = members.stream().sorted(Comparator.comparing(Member::id)).toList();
    if (members.stream().map(Member::id).distinct().count() != members.size()) {
      throw new IllegalArgumentException("duplicate node ids in view " + members);
    }
  }

  public List<NodeId> memberIds() {
    return members.stream().map(Member::id).toList();
  }

  public boolean contains(NodeId id) {
    for (int i = 0; i < members.size(); i++) { // asked for every update a buddy stores: no stream, no iterator
      if (members.get(i).id().equals(id)) {
        return true;
      }
    }
    return false;
  }

  public Optional<Member> member(NodeId id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst();
  }

  /**
   * Whether {@code id} is a member of both views as two different runs (it restarted under the same id between them):
   * the sessions it owned before are not owned by it now.
   */
  public boolean restartedSince(MembershipView earlier, NodeId id) {
    Optional<Member> before = earlier == null ? Optional.empty() : earlier.member(id);
    Optional<Member> now = member(id);
    return before.isPresent() && now.isPresent() && before.get().incarnation() != now.get().incarnation();
  }

  @Override
  public String toString() {
    return "view#" + viewId + members.stream().map(m -> m.id().value()).collect(Collectors.joining(",", "[", "]"));
  }
}
