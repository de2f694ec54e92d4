package io.tandem.drill;

/**
 * What came back for one HTTP request through a load balancer.
 *
 * @param delivery whether the request reached a node and an answer came back
 * @param status the HTTP status, or 0 without an answer
 * @param body the response body, trimmed; empty without an answer
 * @param sessionId the session id a {@code Set-Cookie} handed out, or null
 * @param location the {@code Location} header of a redirect, or null
 */
record Answer(Delivery delivery, int status, String body, String sessionId, String location) {

  /** Jepsen's three outcomes, seen from the transport. */
  enum Delivery {
    /** An HTTP answer came back (of any status). */
    ANSWERED,
    /** Nothing was sent: the connection could not be opened. Safe to send elsewhere. */
    NOT_SENT,
    /** Sent, then the connection broke or the answer did not come in time: it may or may not have happened. */
    UNKNOWN
  }

  static Answer notSent() {
    return new Answer(Delivery.NOT_SENT, 0, "", null, null);
  }

  static Answer unknown() {
    return new Answer(Delivery.UNKNOWN, 0, "", null, null);
  }

  /** What the drill application said, parsed; {@link AppResponse.Kind#NONE} without a 200 answer. */
  AppResponse app() {
    return delivery == Delivery.ANSWERED && status == 200 ? AppResponse.parse(body) : AppResponse.NONE;
  }

  /**
   * The outcome of a write this answer acknowledges or refuses. Unknown: no answer; a gateway's 502/504 (the node
   * took the request, then broke or timed out); Tandem's 503 with {@code Retry-After} (the change may or may not
   * survive); a 500 (in SYNC mode: a value refused at the end of the request, held by the node that answered but not
   * by its buddy). Any other answer that is not the application's "ok" (a 400 "refused" among them) did not happen.
   */
  Outcome writeOutcome() {
    if (delivery == Delivery.UNKNOWN || status == 500 || status == 502 || status == 503 || status == 504) {
      return Outcome.UNKNOWN;
    }
    return app().kind() == AppResponse.Kind.OK ? Outcome.OK : Outcome.FAILED;
  }
}
