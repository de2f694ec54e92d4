package io.tandem.core.replicator;

/**
 * What happened to one request's flush, and so what the container may tell the client. In SYNC mode only
 * {@link #isConfirmed() confirmed} outcomes may be answered "200 OK"; see the README's contract.
 */
public enum FlushOutcome {
  /** The session is not owned here (looked up by id, and no longer owned). */
  NOT_OWNED(true),
  /** Nothing to send, and nothing this request changed is waiting for an acknowledgement. */
  NOTHING(true),
  /** Only the access time moved; it will reach the buddy in a coalesced touch batch. */
  TOUCHED(true),
  /** SYNC: a buddy acknowledged an update carrying every change of this request. */
  REPLICATED(true),
  /** ASYNC: queued for the buddy. */
  QUEUED(true),
  /** ASYNC: the queue was full; the session is marked for a full resend by the maintenance tick. */
  OVERFLOWED(true),
  /** This node is alone in its view: the session has no backup, and {@code sessionsWithoutBackup} counts it. */
  NO_BUDDY(true),
  /**
   * SYNC: no buddy acknowledged within the ack timeout plus the settle timeout (the buddy stayed in the view but did
   * not answer, or kept refusing). The change is kept here and re-sent, but whether it survives a failure of this
   * node is unknown: answer 503.
   */
  UNCONFIRMED(false),
  /** Another node owns the session now; what this request changed here is not kept: answer 503. */
  FENCED(false),
  /**
   * An attribute this request set could not be serialized (class not allowed, not serializable, over {@code
   * maxValueSize}), or would have made the session's copy larger than {@code maxSessionSize} (see {@link
   * CopyBudget}). It was sent as removed, so no copy keeps an older value; SYNC answers 500, ASYNC logs it.
   */
  NOT_REPLICABLE(false);

  private final boolean confirmed;

  FlushOutcome(boolean confirmed) {
    this.confirmed = confirmed;
  }

  /** Whether a SYNC response may say the request's changes are kept on two nodes (or that this node is alone). */
  public boolean isConfirmed() {
    return confirmed;
  }
}
