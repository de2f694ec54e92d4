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
 * @param status the HTTP status of the answer, 0 without one: a 500 on a write is "not replicated" (the node that
 *     answered holds the change, its buddy does not), so after a failover the attribute may be absent
 * @param cause why the request failed or its outcome is unknown, for the report's breakdown ({@link Answer#cause()});
 *     "" when it was acknowledged
 */
record Operation(
    Kind kind, int account, int tab, int generation, String sessionId, String key, String value, long seq,
    long previousSeq, String node, Outcome outcome, boolean loginPage, int status, String cause, long startedMillis,
    long endedMillis) {
  /** The status Tandem answers in SYNC mode when a change of the request could not be replicated to the buddy. */
  static final int NOT_REPLICATED = 500;

  enum Kind {
    WRITE,
    INVALIDATE
  }

  boolean acknowledged() {
    return outcome == Outcome.OK;
  }

  /** A write answered 500: unknown, and after a failover its attribute may be absent (the buddy dropped it). */
  boolean notReplicated() {
    return kind == Kind.WRITE && status == NOT_REPLICATED;
  }
}
