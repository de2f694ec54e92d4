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
  /** The response was already sent when one of the above was found; logged, and counted here. */
  final LongAdder alreadyCommitted = new LongAdder();
}
