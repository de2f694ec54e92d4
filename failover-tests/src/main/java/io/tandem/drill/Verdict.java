package io.tandem.drill;

import java.util.List;
import java.util.Map;

/**
 * What the checker proved from a drill's history.
 *
 * @param requests every request of the history; it equals {@code acknowledged + logoutsAcknowledged +
 *     failedRequests + unknownRequests}
 * @param acknowledged writes the client got "ok" for
 * @param logoutsAcknowledged invalidations (logouts) the client got "ok" for
 * @param lost acknowledged writes whose value is not in the session at the end (nor overwritten by a later write)
 * @param sessionsLost accounts with acknowledged writes whose session is gone at the end
 * @param sessionsResurrected invalidated sessions (acknowledged) that a node served again at the end
 * @param versionsWentBack acknowledged writes that found the session older than an earlier acknowledged write, and
 *     final sessions older than their last acknowledged write
 * @param staleOwnerWrites of those, writes acknowledged by another node than the one that acknowledged the newer
 *     state: two nodes accepted writes for one session
 * @param loggedOut answers of the login page to a logged-in user, and final reads showing another principal than
 *     the one the user logged in with (or the login page)
 * @param refusedButKept writes that did not happen (refused, or never sent) whose value is in the session at the end
 * @param failedRequests requests answered with a failure (a 400 "refused" among them) or not sent at all
 * @param unknownRequests requests whose outcome is unknown (sent, then no answer; a 500, 502, 503 or 504)
 * @param notReplicatedRequests of the unknown, writes answered 500: the answering node held the change, its buddy
 *     did not (the attribute may be absent after a failover)
 * @param retryLaterRequests of the unknown, requests answered 503 (Tandem adds {@code Retry-After})
 * @param failedByCause the failed requests by cause, the most frequent first ({@link FailureBreakdown})
 * @param unknownByCause the requests of unknown outcome by cause (503s by reason, no answer in time, ...)
 * @param faultToFirstSuccessMillis per fault, from the fault to the first acknowledged write of a user whose last
 *     write before it had been acknowledged by the faulted node or by a node whose buddy it was ({@link Fault#affects}); {@link #NO_USER_AFFECTED} if there was no such user,
 *     {@link #NOT_SERVED} if none of them had an acknowledged write again
 * @param faultToMedianFirstSuccessMillis per fault, the median over those users of the time to each one's first
 *     acknowledged write after it (of those served again); {@link #NO_USER_AFFECTED} or {@link #NOT_SERVED} (none was)
 * @param faultToAllServedMillis per fault, until every such user had an acknowledged write again; {@link
 *     #NO_USER_AFFECTED} or {@link #NOT_SERVED} (not all of them were)
 * @param faultToMedianWaitedMillis as {@code faultToMedianFirstSuccessMillis}, counting only the time the user's
 *     requests were open (its think time between pages left out): the outage as the user felt it
 * @param faultToAllWaitedMillis as {@code faultToAllServedMillis}, counting only the time requests were open
 * @param fromFirstRefusal per fault, the same users' first successes timed from the faulted node's first refused
 *     connection instead of from the fault: failover where users see it ({@link FromRefusal})
 * @param examples a few of the violations, in words
 */
record Verdict(
    int requests,
    int acknowledged,
    int logoutsAcknowledged,
    int lost,
    int sessionsLost,
    int sessionsResurrected,
    int versionsWentBack,
    int staleOwnerWrites,
    int loggedOut,
    int refusedButKept,
    int failedRequests,
    int unknownRequests,
    int notReplicatedRequests,
    int retryLaterRequests,
    Map<String, Integer> failedByCause,
    Map<String, Integer> unknownByCause,
    List<Long> faultToFirstSuccessMillis,
    List<Long> faultToMedianFirstSuccessMillis,
    List<Long> faultToAllServedMillis,
    List<Long> faultToMedianWaitedMillis,
    List<Long> faultToAllWaitedMillis,
    List<FromRefusal> fromFirstRefusal,
    List<String> examples) {
  /** A fault after which no user had to move: its timings have no figure (JSON: -1). */
  static final long NO_USER_AFFECTED = -1;
  /** Users the fault affected were not (all) served again before the drill ended (JSON: -2). */
  static final long NOT_SERVED = -2;

  /** Nothing acknowledged was lost and no invariant broke. */
  boolean clean() {
    return lost == 0 && sessionsLost == 0 && sessionsResurrected == 0 && versionsWentBack == 0 && staleOwnerWrites == 0
        && loggedOut == 0 && refusedButKept == 0;
  }
}
