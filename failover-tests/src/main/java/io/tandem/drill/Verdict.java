package io.tandem.drill;

import java.util.List;

/**
 * What the checker proved from a drill's history.
 *
 * @param acknowledged writes the client got "ok" for
 * @param lost acknowledged writes whose value is not in the session at the end (nor overwritten by a later write)
 * @param sessionsLost accounts with acknowledged writes whose session is gone at the end
 * @param sessionsResurrected invalidated sessions (acknowledged) that a node served again at the end
 * @param versionsWentBack acknowledged writes that found the session older than an earlier acknowledged write, and
 *     final sessions older than their last acknowledged write
 * @param staleOwnerWrites of those, writes acknowledged by another node than the one that acknowledged the newer
 *     state: two nodes accepted writes for one session
 * @param loggedOut answers of the login page to a logged-in user
 * @param failedRequests requests answered with a failure or not sent at all
 * @param unknownRequests requests whose outcome is unknown (sent, then no answer)
 * @param faultToFirstSuccessMillis per fault, from the fault to the first acknowledged write of a user whose last
 *     write before it had been acknowledged by the faulted node; -1 if none was
 * @param faultToAllServedMillis per fault, until every such user had an acknowledged write again; -1 if not all did
 * @param examples a few of the violations, in words
 */
record Verdict(
    int acknowledged,
    int lost,
    int sessionsLost,
    int sessionsResurrected,
    int versionsWentBack,
    int staleOwnerWrites,
    int loggedOut,
    int failedRequests,
    int unknownRequests,
    List<Long> faultToFirstSuccessMillis,
    List<Long> faultToAllServedMillis,
    List<String> examples) {

  /** Nothing acknowledged was lost and no invariant broke. */
  boolean clean() {
    return lost == 0 && sessionsLost == 0 && sessionsResurrected == 0 && versionsWentBack == 0 && staleOwnerWrites == 0
        && loggedOut == 0;
  }
}
