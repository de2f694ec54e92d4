package io.tandem.core.replicator;

/** What happened to one request's flush. The request goes on in every case; the outcome feeds stats and tests. */
public enum FlushOutcome {
  /** The session is not owned here. */
  NOT_OWNED,
  /** Nothing to send. */
  NOTHING,
  /** Only the access time moved; it will reach the buddy in a coalesced touch batch. */
  TOUCHED,
  /** SYNC: the buddy acknowledged this flush. */
  REPLICATED,
  /** ASYNC: queued for the buddy. */
  QUEUED,
  /** ASYNC: the queue was full; the session is marked for a full resend by the maintenance tick. */
  OVERFLOWED,
  /** There is no buddy (a single member): the session has no backup. */
  NO_BUDDY,
  /** SYNC: no acknowledgement within the ack timeout; counted and logged. */
  TIMED_OUT,
  /** The buddy could not be reached, or refused the update; counted and logged. */
  FAILED,
  /** Another node owns the session now; the listener was told. */
  FENCED
}
