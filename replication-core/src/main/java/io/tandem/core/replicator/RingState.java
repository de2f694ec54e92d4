package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;

/**
 * The ring this node replicates on, as {@link RingTracker} last published it: one immutable value, so that a reader
 * never pairs a view with the buddy of another.
 *
 * @param view the membership's last view, or null before the first: adoption on a view change and orphan expiry go by
 *     it
 * @param replicating {@code view} without the members the transport found gone ({@link SuspectedPeers}), the same
 *     instance when there are none; the ring, {@link Locator}, {@link LeftoverCopies} and {@link Migrations} work on
 *     it
 * @param buddy the member after this node in {@code replicating}, or null when this node is alone in it (or before the
 *     first view)
 */
record RingState(MembershipView view, MembershipView replicating, NodeId buddy) {
  /** Before the first view. */
  static final RingState NONE = new RingState(null, null, null);
}
