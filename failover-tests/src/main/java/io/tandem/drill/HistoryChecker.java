package io.tandem.drill;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks a drill's recorded history against what the cluster holds at the end. Pure: the drill does the reading.
 *
 * <ul>
 *   <li>Every acknowledged write is in its session at the end, byte for byte, unless a later write of the same key
 *       replaced it: an acknowledged one, or an unknown one whose value is there; so no attribute comes back older
 *       than its last acknowledged write. A later write answered 500 (not replicated: its node held it, its buddy
 *       dropped the attribute) may also have left the attribute absent.
 *   <li>A write that did not happen (refused, or never sent) is not in the session at the end.
 *   <li>An account's session with acknowledged writes still exists at the end.
 *   <li>A session whose invalidation was acknowledged is never served again.
 *   <li>Versions never go back: a write numbered n that was acknowledged must be seen by every later write of the
 *       same tab, which the application proves by answering the highest write number the session had applied.
 *   <li>One owner at a time: a write that saw an older session than a newer acknowledged one, on another node,
 *       means two nodes accepted writes for the session.
 *   <li>A logged-in user stays logged in, with the principal it logged in with: no login page after login, and the
 *       final read shows the same principal (class and content).
 * </ul>
 */
final class HistoryChecker {
  private static final int MAX_EXAMPLES = 10;
  private final boolean checkVersions;
  private final Map<Integer, String> principals;

  /** @param checkVersions whether the workload numbers each tab's writes into the session's {@code seq} */
  HistoryChecker(boolean checkVersions) {
    this(checkVersions, Map.of());
  }

  /**
   * @param principals per account, the principal its final read must show ({@link AppResponse#principal()}); accounts
   *     not in it are not checked
   */
  HistoryChecker(boolean checkVersions, Map<Integer, String> principals) {
    this.checkVersions = checkVersions;
    this.principals = Map.copyOf(principals);
  }

  /**
   * @param finalReads each account's session as read at the end ({@link AppResponse.Kind#NO_SESSION} when gone)
   * @param resurrected invalidated session ids some node served at the end
   */
  Verdict check(List<Operation> history, Map<Integer, AppResponse> finalReads, Set<String> resurrected, List<Fault> faults) {
    return check(history, finalReads, resurrected, faults, List.of());
  }

  /**
   * @param refusals the connections the drill's client saw refused, per node ({@link FromRefusal}); none behind an
   *     external balancer
   */
  Verdict check(List<Operation> history, Map<Integer, AppResponse> finalReads, Set<String> resurrected, List<Fault> faults,
      List<Refusal> refusals) {
    List<String> examples = new ArrayList<>();
    int acknowledged = (int) history.stream().filter(o -> o.kind() == Operation.Kind.WRITE && o.acknowledged()).count();
    int logoutsAcknowledged = (int) history.stream().filter(o -> o.kind() == Operation.Kind.INVALIDATE && o.acknowledged()).count();
    int failed = (int) history.stream().filter(o -> o.outcome() == Outcome.FAILED).count();
    int unknown = (int) history.stream().filter(o -> o.outcome() == Outcome.UNKNOWN).count();
    int notReplicated = (int) history.stream().filter(Operation::notReplicated).count();
    int retryLater = (int) history.stream().filter(o -> o.status() == 503).count();
    int loggedOut = (int) history.stream().filter(Operation::loginPage).count();
    int lost = 0;
    int refusedButKept = 0;
    int sessionsLost = 0;
    int wentBack = 0;
    int staleOwner = 0;
    Map<Integer, List<Operation>> byAccount = history.stream().collect(Collectors.groupingBy(Operation::account, TreeMap::new, Collectors.toList()));
    for (Map.Entry<Integer, List<Operation>> entry : byAccount.entrySet()) {
      int account = entry.getKey();
      List<Operation> ops = entry.getValue();
      int generation = ops.stream().mapToInt(Operation::generation).max().orElse(0);
      List<Operation> current = ops.stream()
          .filter(o -> o.kind() == Operation.Kind.WRITE && o.generation() == generation)
          .sorted(Comparator.comparingInt(Operation::tab).thenComparingLong(Operation::seq))
          .toList();
      AppResponse last = finalReads.getOrDefault(account, AppResponse.NONE);
      List<Operation> acked = current.stream().filter(Operation::acknowledged).toList();
      String principal = principals.get(account);
      if (principal != null && (last.kind() == AppResponse.Kind.LOGIN_PAGE
          || last.kind() == AppResponse.Kind.SESSION && !principal.equals(last.principal()))) {
        loggedOut++;
        example(examples, "account " + account + ": logged in as " + principal + " but the final read shows "
            + (last.kind() == AppResponse.Kind.LOGIN_PAGE ? "the login page" : "principal " + last.principal()));
      }
      if (last.kind() != AppResponse.Kind.SESSION) {
        if (!acked.isEmpty()) {
          sessionsLost++;
          lost += acked.size();
          example(examples, "account " + account + ": session gone at the end (" + last.kind()
              + (last.node().isEmpty() ? "" : " from " + last.node()) + ") with " + acked.size() + " acknowledged writes");
        }
        continue;
      }
      for (Operation write : acked) {
        String found = last.attributes().get(write.key());
        if (!write.value().equals(found) && !replacedLater(write, current, found)) {
          lost++;
          example(examples, "account " + account + ": " + write.key() + "=" + write.value() + " acknowledged by " + write.node()
              + " but the session holds " + (found == null ? "no " + write.key() : found));
        }
      }
      for (Operation write : current) {
        if (write.outcome() == Outcome.FAILED && write.value().equals(last.attributes().get(write.key()))) {
          refusedButKept++;
          example(examples, "account " + account + ": " + write.key() + "=" + write.value() + " was answered "
              + (write.status() == 0 ? "not sent" : Integer.toString(write.status())) + " (did not happen) but the session holds it");
        }
      }
      if (checkVersions) {
        int[] counts = versions(account, current, last, examples);
        wentBack += counts[0];
        staleOwner += counts[1];
      }
    }
    return new Verdict(history.size(), acknowledged, logoutsAcknowledged, lost, sessionsLost, resurrected.size(), wentBack, staleOwner, loggedOut, refusedButKept,
        failed, unknown, notReplicated, retryLater,
        FailureBreakdown.of(history, Outcome.FAILED), FailureBreakdown.of(history, Outcome.UNKNOWN),
        faults.stream().map(f -> recovery(history, f, Recovery.FIRST)).toList(),
        faults.stream().map(f -> recovery(history, f, Recovery.MEDIAN)).toList(),
        faults.stream().map(f -> recovery(history, f, Recovery.ALL)).toList(),
        faults.stream().map(f -> recovery(history, f, Recovery.MEDIAN_WAITED)).toList(),
        faults.stream().map(f -> recovery(history, f, Recovery.ALL_WAITED)).toList(),
        FromRefusal.perFault(history, faults, refusals),
        examplesWith(examples, resurrected));
  }

  /**
   * The sessions no node may ever serve again: those whose invalidation was acknowledged. A logout answered 503 (or
   * not answered) is unknown: the session may rightly live on.
   */
  static Set<String> acknowledgedInvalidations(List<Operation> history) {
    Set<String> ids = new java.util.TreeSet<>();
    for (Operation op : history) {
      if (op.kind() == Operation.Kind.INVALIDATE && op.acknowledged() && op.sessionId() != null) {
        ids.add(op.sessionId());
      }
    }
    return ids;
  }

  /**
   * Whether a later write of the same key and tab replaced {@code write}: an acknowledged one (which is checked in its
   * turn), or one that may have happened (unknown) and put {@code found} there or, answered 500 (its buddy dropped the
   * attribute), left it absent. A write that failed (refused, never sent) replaced nothing.
   */
  private static boolean replacedLater(Operation write, List<Operation> current, String found) {
    return current.stream().anyMatch(o -> o.tab() == write.tab() && o.key().equals(write.key()) && o.seq() > write.seq()
        && (o.acknowledged() || o.outcome() == Outcome.UNKNOWN && (o.value().equals(found) || found == null && o.notReplicated())));
  }

  /**
   * {went back, of which on another node than the newer acknowledged state}. The session's {@code seq} is the highest
   * write number applied to it, so a write whose client gave up on it and that lands late cannot lower it: finding
   * a lower one than the newest acknowledged write means a copy that missed that write.
   */
  private static int[] versions(int account, List<Operation> current, AppResponse last, List<String> examples) {
    int wentBack = 0;
    int staleOwner = 0;
    long newestAcked = -1;
    String newestNode = "";
    Operation newest = null;
    for (Operation write : current) {
      if (!write.acknowledged()) {
        continue;
      }
      if (write.previousSeq() < newestAcked) {
        wentBack++;
        boolean otherNode = !write.node().equals(newestNode);
        if (otherNode) {
          staleOwner++;
        }
        example(examples, "account " + account + ": write " + write.seq() + " on " + write.node() + " found seq " + write.previousSeq()
            + " after write " + newestAcked + " was acknowledged by " + newestNode + "; " + InBetween.of(current, newest, write));
      }
      newestAcked = write.seq();
      newestNode = write.node();
      newest = write;
    }
    long finalSeq = last.attributes().containsKey("seq") ? Long.parseLong(last.attributes().get("seq")) : -1;
    if (finalSeq < newestAcked) {
      wentBack++;
      example(examples, "account " + account + ": the final session has seq " + finalSeq + " after write " + newestAcked + " was acknowledged");
    }
    return new int[] {wentBack, staleOwner};
  }

  /** Which account's time to its first acknowledged write after a fault {@link #recovery} gives. */
  private enum Recovery {
    FIRST, MEDIAN, ALL, MEDIAN_WAITED, ALL_WAITED;

    boolean waited() {
      return this == MEDIAN_WAITED || this == ALL_WAITED;
    }
  }

  /**
   * From {@code fault} to the first account's first acknowledged write ({@code FIRST}), the median account's (the
   * lower middle one of an even count), or the last account's ({@code ALL}), among the affected accounts: those whose
   * last acknowledged write before the fault came from the faulted node or from a node whose buddy it was ({@link
   * Fault#affects}).
   */
  private static long recovery(List<Operation> history, Fault fault, Recovery which) {
    Set<Integer> affected = affected(history, fault);
    if (affected.isEmpty()) {
      return Verdict.NO_USER_AFFECTED;
    }
    Map<Integer, Long> served = new TreeMap<>();
    firstSuccessEnds(history, fault, affected).forEach((account, ended) -> served.put(account, ended - fault.atMillis()));
    if (which.waited()) {
      served.replaceAll((account, millis) -> waited(history, account, fault.atMillis(), fault.atMillis() + millis));
    }
    List<Long> times = served.values().stream().sorted().toList();
    if (times.isEmpty()) {
      return Verdict.NOT_SERVED;
    }
    return switch (which) {
      case FIRST -> times.get(0);
      // The median of those served; a user never served again shows in ALL, which then has no figure.
      case MEDIAN, MEDIAN_WAITED -> times.get((times.size() - 1) / 2);
      case ALL, ALL_WAITED -> times.size() < affected.size() ? Verdict.NOT_SERVED : times.get(times.size() - 1);
    };
  }

  /**
   * The accounts {@code fault} affected: those whose last acknowledged write before it came from the faulted node or
   * from a node whose buddy it was ({@link Fault#affects}).
   */
  static Set<Integer> affected(List<Operation> history, Fault fault) {
    Map<Integer, Operation> lastBefore = new TreeMap<>();
    for (Operation op : history) {
      if (op.acknowledged() && op.endedMillis() <= fault.atMillis()) {
        lastBefore.merge(op.account(), op, (a, b) -> a.endedMillis() >= b.endedMillis() ? a : b);
      }
    }
    Set<Integer> affected = new HashSet<>();
    lastBefore.forEach((account, op) -> {
      if (fault.affects(op.node())) {
        affected.add(account);
      }
    });
    return affected;
  }

  /**
   * Per account of {@code accounts} that had one, the end (epoch millis) of its first success after {@code fault}:
   * the earliest-ending acknowledged request sent at or after it.
   */
  static Map<Integer, Long> firstSuccessEnds(List<Operation> history, Fault fault, Set<Integer> accounts) {
    Map<Integer, Long> ends = new TreeMap<>();
    for (Operation op : history) {
      if (accounts.contains(op.account()) && op.acknowledged() && op.startedMillis() >= fault.atMillis()) {
        ends.merge(op.account(), op.endedMillis(), Math::min);
      }
    }
    return ends;
  }

  /**
   * How long the account waited on the cluster from {@code from} until {@code until} (the end of its first success):
   * the time its requests were open in that span, counted once where tabs overlap. The think time between its pages
   * is left out, so the figure is the outage as the user felt it, not the workload's pacing.
   */
  private static long waited(List<Operation> history, int account, long from, long until) {
    List<long[]> open = history.stream()
        .filter(o -> o.account() == account && o.endedMillis() > from && o.startedMillis() < until)
        .map(o -> new long[] {Math.max(o.startedMillis(), from), Math.min(o.endedMillis(), until)})
        .sorted(Comparator.comparingLong(span -> span[0]))
        .toList();
    long total = 0;
    long coveredTo = from;
    for (long[] span : open) {
      long start = Math.max(span[0], coveredTo);
      if (span[1] > start) {
        total += span[1] - start;
        coveredTo = span[1];
      }
    }
    return total;
  }

  private static void example(List<String> examples, String text) {
    if (examples.size() < MAX_EXAMPLES) {
      examples.add(text);
    }
  }

  private static List<String> examplesWith(List<String> examples, Set<String> resurrected) {
    List<String> all = new ArrayList<>(examples);
    resurrected.stream().limit(MAX_EXAMPLES).forEach(id -> all.add("invalidated session " + id + " was served again"));
    return List.copyOf(all);
  }
}
