package io.tandem.core.config;

/** Whether the request waits for the buddy's acknowledgement. */
public enum ReplicationMode {
  /** The response completes after the buddy acknowledged, or after the ack timeout (counted and logged). */
  SYNC,
  /** The change is queued (bounded, coalesced per session) and the response completes at once. */
  ASYNC
}
