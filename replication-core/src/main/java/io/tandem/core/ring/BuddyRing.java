package io.tandem.core.ring;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who backs up whom: each member's buddy is the next member in node-id order, wrapping around. A pure function of
 * the view, so every node derives the same ring without talking, and one death moves only the sessions whose owner
 * or buddy died.
 */
public final class BuddyRing {
  private BuddyRing() {}

  /** The member that holds {@code member}'s backups; empty when it is alone or not in the view. */
  public static Optional<NodeId> buddyOf(MembershipView view, NodeId member) {
    return neighbour(view, member, 1);
  }

  /** The member whose backups {@code member} holds; empty when it is alone or not in the view. */
  public static Optional<NodeId> predecessorOf(MembershipView view, NodeId member) {
    return neighbour(view, member, -1);
  }

  /**
   * The member that holds, or would hold, the backups of the node named {@code id}, whether or not it is still a
   * member: the next member after {@code id} in node-id order, wrapping around. For a member this is its buddy; for
   * a node that left the view it is the member that was its buddy, unless that one left too (then the one that
   * adopted from it). Empty when no other member exists.
   */
  public static Optional<NodeId> successorOf(MembershipView view, NodeId id) {
    List<NodeId> ids = view.memberIds();
    for (NodeId candidate : ids) {
      if (candidate.compareTo(id) > 0) {
        return Optional.of(candidate);
      }
    }
    return ids.isEmpty() || ids.get(0).equals(id) ? Optional.empty() : Optional.of(ids.get(0));
  }

  /** Every member's buddy. */
  public static Map<NodeId, NodeId> buddies(MembershipView view) {
    Map<NodeId, NodeId> ring = new LinkedHashMap<>();
    for (NodeId id : view.memberIds()) {
      buddyOf(view, id).ifPresent(buddy -> ring.put(id, buddy));
    }
    return ring;
  }

  private static Optional<NodeId> neighbour(MembershipView view, NodeId member, int step) {
    List<NodeId> ids = view.memberIds();
    int index = ids.indexOf(member);
    if (index < 0 || ids.size() < 2) {
      return Optional.empty();
    }
    return Optional.of(ids.get(Math.floorMod(index + step, ids.size())));
  }
}
