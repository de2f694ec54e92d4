package io.tandem.core.spi;

import java.util.Objects;

/**
 * A live member as membership sees it: its node id, the address its transport listens on, and which run of it this is.
 *
 * <p>A node restarted under the same id and address is a new member ({@code incarnation} differs), although its id is
 * the same: it comes back without the sessions it owned, and whoever holds their copies must know (docs/protocol.md
 * 6.2). Membership services that cannot tell runs apart give 0.
 */
public record Member(NodeId id, String transportAddress, long incarnation) {
  public Member {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(transportAddress, "transportAddress");
  }

  /** A member whose runs are not told apart. */
  public Member(NodeId id, String transportAddress) {
    this(id, transportAddress, 0);
  }
}
