package io.tandem.tomcat;

import io.tandem.core.replicator.FlushOutcome;

/**
 * What the valve may tell the client after replicating a request: the application's own answer, 500 (a value it
 * stored cannot be replicated) or 503 with {@code Retry-After} (an unknown outcome: the request's changes may or may
 * not survive a failure). When several apply, the worst wins: an unknown outcome over an error.
 *
 * @param why the message the error response and the log carry
 */
record Verdict(Kind kind, String why) {
  enum Kind { OK, NOT_REPLICABLE, END_UNCONFIRMED, UNCONFIRMED, FENCED }

  static final Verdict OK = new Verdict(Kind.OK, "");

  static Verdict of(FlushOutcome outcome, String sessionId) {
    return switch (outcome) {
      case FENCED -> new Verdict(Kind.FENCED, "session " + sessionId
          + " had moved to another node; this request's changes were not kept, retry it");
      case UNCONFIRMED -> new Verdict(Kind.UNCONFIRMED, "session " + sessionId
          + " could not be replicated to a buddy in time; whether this request's changes are kept is unknown, retry it");
      case NOT_REPLICABLE -> new Verdict(Kind.NOT_REPLICABLE, "a session attribute this request set cannot be replicated");
      default -> OK;
    };
  }

  /** The application asked for a session that exists but had moved to another node since the request was admitted. */
  static Verdict movedWhileRunning(String why) {
    return new Verdict(Kind.FENCED, why + "; the application ran without it, so this request's answer is not kept, retry it");
  }

  static Verdict endUnconfirmed() {
    return new Verdict(Kind.END_UNCONFIRMED, "the buddy did not acknowledge this request's invalidation or session id"
        + " change in time; whether it sticks is unknown, retry it");
  }

  static Verdict notReplicable(String why) {
    return new Verdict(Kind.NOT_REPLICABLE, why);
  }

  /** The status the client is answered with in the application's place: 500 for an error, 503 for an unknown outcome. */
  int status() {
    return kind == Kind.NOT_REPLICABLE ? 500 : 503;
  }

  Verdict worst(Verdict other) {
    return other.kind.ordinal() > kind.ordinal() ? other : this;
  }

  void count(ResponseCounters counters) {
    switch (kind) {
      case NOT_REPLICABLE -> counters.notReplicable.increment();
      case END_UNCONFIRMED -> counters.endUnconfirmed.increment();
      case UNCONFIRMED -> counters.unconfirmed.increment();
      case FENCED -> counters.fenced.increment();
      default -> { }
    }
  }
}
