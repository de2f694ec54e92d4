package io.tandem.core.replicator;

/**
 * The claim rule (docs/protocol.md 4): every epoch a claim on a session takes is computed here. A claim is made from
 * one copy, and takes that copy's epoch plus one. Never more: a claim above the copy it was made from would win over
 * an owner that acknowledged writes at an epoch in between (9, "What ballots can and cannot do here"). And no node id
 * breaks a tie: two claims from one copy carry the same bytes, and ordering them does not keep the writes the first
 * one acknowledged. Ties are avoided instead by making claims that cannot be concurrent (4.2, 11.2, 11.3).
 *
 * <p>Implementation notes: stateless.
 */
final class Claims {
  /** The epoch of a session created on this node. */
  static final long CREATED = 1;

  private Claims() {}

  /** The epoch of a claim made from a copy at {@code sourceEpoch}: adoption, promotion, migration. */
  static long from(long sourceEpoch) {
    return sourceEpoch + 1;
  }

  /**
   * The epoch a holder hands a session over at: the one the requester asked for, or, asked for 0 ("the epoch after
   * yours", a one-hop {@code Migrate}), {@link #from} the holder's copy.
   */
  static long askedOr(long asked, long sourceEpoch) {
    return asked == 0 ? from(sourceEpoch) : asked;
  }

  /** The epoch of the copy a claim at {@code claimed} was made from (the holder's, for a session migrated in). */
  static long source(long claimed) {
    return claimed - 1;
  }
}
