package io.tandem.drill;

/**
 * What came back for one HTTP request through a load balancer.
 *
 * @param delivery whether the request reached a node and an answer came back
 * @param status the HTTP status, or 0 without an answer
 * @param body the response body, trimmed; empty without an answer
 * @param sessionId the session id a {@code Set-Cookie} handed out, or null
 * @param location the {@code Location} header of a redirect, or null
 * @param failure without an answer, why in a few words ("not sent: connection refused", "no answer: timed out");
 *     "" for an answer
 */
record Answer(Delivery delivery, int status, String body, String sessionId, String location, String failure) {
  /** {@link #failure} of a connection the node's port refused: the node is gone (or not started), nothing was sent. */
  static final String CONNECTION_REFUSED = "not sent: connection refused";

  /** Jepsen's three outcomes, seen from the transport. */
  enum Delivery {
    /** An HTTP answer came back (of any status). */
    ANSWERED,
    /** Nothing was sent: the connection could not be opened. Safe to send elsewhere. */
    NOT_SENT,
    /** Sent, then the connection broke or the answer did not come in time: it may or may not have happened. */
    UNKNOWN
  }

  /** An HTTP answer. */
  Answer(Delivery delivery, int status, String body, String sessionId, String location) {
    this(delivery, status, body, sessionId, location, "");
  }

  /** Nothing was sent; {@code why} starts with "not sent: ". */
  static Answer notSent(String why) {
    return new Answer(Delivery.NOT_SENT, 0, "", null, null, why);
  }

  /** Sent, and no answer came back; {@code why} starts with "no answer: ". */
  static Answer unknown(String why) {
    return new Answer(Delivery.UNKNOWN, 0, "", null, null, why);
  }

  /** Whether the node refused the connection: its port no longer accepts (a timed-out connect is not a refusal). */
  boolean refused() {
    return delivery == Delivery.NOT_SENT && CONNECTION_REFUSED.equals(failure);
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

  /**
   * Why a request was not acknowledged, in a few words the report counts by: "" for the application's "ok"; without
   * an answer, {@link #failure}; a 503 by its reason (Tandem names it in the error page: a paused or cut-off node,
   * a session that could not be taken over now, a session that moved on, no buddy acknowledgement in time, an
   * unconfirmed invalidation), and a 503 that is not Tandem's (the balancer's, or the container's); otherwise the
   * status, with what it means where the drill knows.
   */
  String cause() {
    if (delivery != Delivery.ANSWERED) {
      return failure;
    }
    AppResponse app = app();
    return switch (status) {
      case 200 -> app.kind() == AppResponse.Kind.OK ? ""
          : app.kind() == AppResponse.Kind.LOGIN_PAGE ? "200 login page" : "200 not the application's ok";
      case 503 -> "503 " + unavailableReason(body);
      case 500 -> body.contains("Tandem:") ? "500 not replicated" : "500 not from Tandem";
      case 502 -> "502 bad gateway";
      case 504 -> "504 gateway timeout";
      case 400 -> body.startsWith("refused") ? "400 value refused" : "400";
      default -> Integer.toString(status);
    };
  }

  /**
   * The reason of a 503, from the message Tandem puts in it ({@code Tandem: <why>}, in Tomcat's error page). The
   * phrases are the valve's and the replication engine's; none has a character the error page escapes.
   */
  private static String unavailableReason(String body) {
    if (!body.contains("Tandem:")) {
      return body.contains("No server is available") ? "no server available (the balancer's)" : "not from Tandem";
    }
    if (body.contains("was paused or cut off")) {
      return "node paused or cut off";
    }
    if (body.contains("had moved to another node")) {
      return "session moved to another node";
    }
    if (body.contains("could not be replicated to a buddy in time")) {
      return "no buddy acknowledgement in time";
    }
    if (body.contains("did not acknowledge this request")) {
      return "invalidation not acknowledged";
    }
    return "session could not be taken over now";
  }
}
