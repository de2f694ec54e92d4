package io.tandem.core.simulation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges what the clients saw, as Jepsen's checkers do: a 200 is a fact, a 503 an unknown, and only facts bind. It
 * holds every logical session's acknowledged state (per key, the highest value a 200 answered; every value written is
 * new and larger than any before it), the ids that must never be served again (invalidated with a 200, or given up by
 * a login answered 200), and fails:
 * <ul>
 *   <li>a read answered 200 with a value older than one a 200 acknowledged before the read began (a lost write);
 *   <li>a session answered "none" after a 200 acknowledged it, unless an invalidation or a login of it may have
 *       happened (a lost session);
 *   <li>an invalidated or abandoned id that a request finds and is answered 200 for (a resurrected session);
 *   <li>at the end, after the faults healed and the cluster settled: a session without exactly one owner, or without a
 *       copy on its owner's buddy, and a final read older than the acknowledged state.
 * </ul>
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton.
 */
final class Checker {
  private final Simulation sim;
  private final List<Violation> violations = new ArrayList<>();
  /** Ids that must never be served again, and since when (virtual nanos). */
  private final Map<String, Long> neverAgain = new HashMap<>();
  private final Map<String, String> whyNeverAgain = new HashMap<>();

  Checker(Simulation sim) {
    this.sim = sim;
  }

  List<Violation> violations() {
    return violations;
  }

  /** What a violation breaks; {@code OwnershipSimulationTest} holds the kinds still open in docs/protocol.md. */
  enum Kind {
    /** A read older than a write a 200 acknowledged, during the run or at the end. */
    LOST_WRITE,
    /** A session a 200 acknowledged is found nowhere. */
    LOST_SESSION,
    /** An id a login answered 200 gave up is served again. */
    ABANDONED_ID_SERVED,
    /** An id a logout answered 200 invalidated is served again. */
    INVALIDATED_SERVED,
    /** After the faults healed and the cluster settled: not exactly one owner. */
    OWNERS_AFTER_SETTLE,
    /** After the cluster settled: the owner's buddy holds no copy. */
    NO_COPY_AFTER_SETTLE,
    /** After the cluster settled: the session is not served. */
    UNAVAILABLE_AFTER_SETTLE,
    /**
     * A 200 of a node answering as alone (no buddy) while its membership view listed other members: a member in the
     * view that a node cannot talk to, for any reason, does not make it alone (the contract; docs/protocol.md 8.3).
     */
    ALONE_WITH_OTHERS_IN_VIEW,
    /** The run itself failed: an engine thread looped or waited where it must not, or the engine threw. */
    RUN_FAILED
  }

  /** One broken rule, when (virtual seconds) and how. */
  record Violation(Kind kind, double atSeconds, String what) {
    @Override
    public String toString() {
      return String.format("%.3fs %s: %s", atSeconds, kind, what);
    }
  }

  void violation(Kind kind, String what) {
    if (violations.size() < 20) {
      violations.add(new Violation(kind, sim.nanos() / 1e9, what));
    }
    sim.trace().add("VIOLATION " + kind + " " + what);
  }

  /** {@code id} ended or was given up, acknowledged at this moment: no request begun from now on may find it. */
  void neverServeAgain(String id, String why) {
    neverAgain.putIfAbsent(id, sim.nanos());
    whyNeverAgain.putIfAbsent(id, why);
  }

  /** A request for {@code id} begun at {@code invoked} was answered 200 with the session found. */
  void served(String id, long invoked, String what) {
    Long since = neverAgain.get(id);
    if (since != null && invoked > since) {
      violation(whyNeverAgain.get(id).startsWith("invalidated") ? Kind.INVALIDATED_SERVED : Kind.ABANDONED_ID_SERVED,
          "session " + id + " served (" + what + ") after it was " + whyNeverAgain.get(id));
    }
  }

  /** One logical session: the chain of ids a user's logins gave it, and its acknowledged state. */
  static final class Logical {
    final int number;
    String id;
    /** The node that last answered 200 for it: the balancer's sticky route, and the jvmRoute of its id. */
    String route;
    /** Per key: each value a 200 acknowledged, and when that 200 came. */
    final Map<String, List<long[]>> acknowledged = new HashMap<>();
    /** A 200 acknowledged the session (its creation). */
    boolean exists;
    /** Created with a 200 in ASYNC mode, which binds nothing: lost with its owner, it is not a violation. */
    boolean createdUnbound;
    /** An operation that may have ended it or changed its id got no 200: absence is no longer a loss. */
    boolean mayBeGone;
    boolean retired;

    Logical(int number) {
      this.number = number;
    }

    /** The highest value acknowledged for {@code key} before {@code when}, or -1. */
    long floor(String key, long when) {
      long floor = -1;
      for (long[] a : acknowledged.getOrDefault(key, List.of())) {
        if (a[1] < when) {
          floor = Math.max(floor, a[0]);
        }
      }
      return floor;
    }

    void acknowledge(String key, long value, long at) {
      acknowledged.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {value, at});
    }

    @Override
    public String toString() {
      return "session#" + number + "(" + id + ")";
    }
  }
}
