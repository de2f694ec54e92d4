package io.tandem.drill;

import java.util.Locale;

/**
 * What a drill proved.
 *
 * @param acknowledged writes the client got "ok" for
 * @param lost acknowledged writes missing at the end (SYNC must have none)
 * @param sessionsLost users whose session was gone at the end
 * @param failedRequests requests that failed or ended unknown (mostly while the fault was detected)
 * @param faultToFirstSuccessMillis from the fault to the first acknowledged write of a user of the failed node
 */
record DrillReport(
    String drill,
    String scope,
    String mode,
    int users,
    int acknowledged,
    int lost,
    int sessionsLost,
    int failedRequests,
    long faultToFirstSuccessMillis,
    long durationMillis) {

  boolean passed() {
    return lost == 0 && sessionsLost == 0;
  }

  String toHuman() {
    return String.format(Locale.ROOT,
        "Drill %s (%s, %s): %d users, %d writes acknowledged, %d lost, %d sessions lost, %d requests failed during the fault,"
            + " first success %d ms after the fault, %d ms in all: %s",
        drill, scope, mode, users, acknowledged, lost, sessionsLost, failedRequests, faultToFirstSuccessMillis, durationMillis,
        passed() ? "PASSED" : "FAILED");
  }

  String toJson() {
    return String.format(Locale.ROOT,
        "{\"drill\":\"%s\",\"scope\":\"%s\",\"mode\":\"%s\",\"users\":%d,\"acknowledged\":%d,\"lost\":%d,\"sessionsLost\":%d,"
            + "\"failedRequests\":%d,\"faultToFirstSuccessMillis\":%d,\"durationMillis\":%d,\"passed\":%s}",
        drill, scope, mode, users, acknowledged, lost, sessionsLost, failedRequests, faultToFirstSuccessMillis, durationMillis, passed());
  }
}
