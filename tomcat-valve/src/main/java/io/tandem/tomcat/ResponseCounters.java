package io.tandem.tomcat;

import java.util.concurrent.atomic.LongAdder;

/**
 * Responses the valve turned from what the application answered into an error, by cause; on JMX. Written by request
 * threads (lock-free), read by JMX.
 */
final class ResponseCounters {
  /** 503: the session could not be trusted here right after a pause (quarantine admission). */
  final LongAdder notAdmitted = new LongAdder();
  /** 503: the session exists but could not be taken over now (its holder refused or is silent). */
  final LongAdder takeoverUnavailable = new LongAdder();
  /** 503: another node took the session over while the request ran; its changes were not kept. */
  final LongAdder fenced = new LongAdder();
  /** 503: SYNC, no buddy acknowledged the request's changes within the ack and settle timeouts. */
  final LongAdder unconfirmed = new LongAdder();
  /** 503: an invalidation or id change the request made was not acknowledged by the buddy. */
  final LongAdder endUnconfirmed = new LongAdder();
  /** 500: SYNC, a value the request stored could not be replicated. */
  final LongAdder notReplicable = new LongAdder();
  /**
   * One of the above was found as the response committed (its buffer filled, the application flushed, or an
   * asynchronous request completed): nothing had been sent, so the client got the 500 or 503 (also counted above).
   */
  final LongAdder answeredAtCommit = new LongAdder();
  /**
   * One of the above was found after the response had committed: it was aborted (no final chunk, short of its
   * declared length, connection closed), so the client saw a failed request (also counted above).
   */
  final LongAdder aborted = new LongAdder();
  /**
   * One of the above was found after an asynchronous response had ended without passing through Tandem (its commit
   * could not be seen in this Tomcat, see the start log): the client saw the application's answer; logged too.
   */
  final LongAdder alreadyCommitted = new LongAdder();
}
