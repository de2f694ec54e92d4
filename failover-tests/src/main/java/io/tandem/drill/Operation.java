package io.tandem.drill;

/**
 * One request in the recorded history.
 *
 * @param account the user (or, in the parallel drill, the shared session) the request belongs to
 * @param tab which of the account's concurrent tabs sent it (0 for sequential users)
 * @param generation how many times the account's session was invalidated before this request
 * @param sessionId the cookie the request carried (for an invalidation: the session it ended)
 * @param seq the write's place in its tab's sequence, or -1 when the workload does not number writes
 * @param previousSeq the session's {@code seq} the node saw before this write; -1 for none or no answer
 * @param node the route of the node that answered, or "" without an answer
 * @param loginPage the node answered with the login page: a logged-in user was logged out
 */
record Operation(
    Kind kind, int account, int tab, int generation, String sessionId, String key, String value, long seq,
    long previousSeq, String node, Outcome outcome, boolean loginPage, long startedMillis, long endedMillis) {

  enum Kind {
    WRITE,
    INVALIDATE
  }

  boolean acknowledged() {
    return outcome == Outcome.OK;
  }
}
