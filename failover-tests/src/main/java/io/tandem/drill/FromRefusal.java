package io.tandem.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Failover time where users see it, for one fault: from the faulted node's first refused connection to each affected
 * user's first success. A refused connection is the first moment any balancer could send the node's users elsewhere
 * (its port no longer accepts: the process is gone, its kernel teardown over); the time from the fault itself also
 * holds that teardown, which grows with the heap the process touched and is the kernel's, not the replication's.
 * Pure: the drill's client records the refusals ({@link Refusals}), the history the successes.
 *
 * <p>The users are the fault's affected users and their first success after it, as for the times from the fault
 * ({@link HistoryChecker#affected}, {@link HistoryChecker#firstSuccessEnds}). A user served again before the refusal
 * (a user of a node whose buddy died, answered without waiting for anyone's port to refuse) counts 0: it waited for
 * nothing after the refusal; {@link #servedBeforeRefusal} says how many did.
 *
 * @param faultToRefusalMillis from the fault to the first connection the drill's client saw the faulted node refuse,
 *     at or after the fault and before that node's next fault; {@link #NO_REFUSAL_SEEN} for none (a hung or cut-off
 *     node accepts or times out, it does not refuse; behind HAProxy or httpd the balancer sees the refusals)
 * @param medianMillis the median over the affected users served again (the lower middle one of an even count) of the
 *     time from that refusal to each one's first success; {@link Verdict#NO_USER_AFFECTED}, {@link Verdict#NOT_SERVED}
 *     (none was), or {@link #NO_REFUSAL_SEEN}
 * @param allServedMillis the same, until every affected user was served again; {@link Verdict#NOT_SERVED} if one never
 *     was
 * @param servedBeforeRefusal affected users whose first success ended before the refusal (counted 0 in the figures)
 */
record FromRefusal(long faultToRefusalMillis, long medianMillis, long allServedMillis, int servedBeforeRefusal) {
  /** No connection to the faulted node was seen refused after the fault (JSON: -3). */
  static final long NO_REFUSAL_SEEN = -3;

  /** Per fault, in order. */
  static List<FromRefusal> perFault(List<Operation> history, List<Fault> faults, List<Refusal> refusals) {
    List<FromRefusal> all = new ArrayList<>();
    for (int i = 0; i < faults.size(); i++) {
      Fault fault = faults.get(i);
      long until = faults.subList(i + 1, faults.size()).stream().filter(f -> f.node().equals(fault.node()))
          .mapToLong(Fault::atMillis).findFirst().orElse(Long.MAX_VALUE);
      all.add(of(history, fault, until, refusals));
    }
    return List.copyOf(all);
  }

  /**
   * @param untilMillis refusals from this instant on belong to a later fault of the same node (a node restarted and
   *     faulted again)
   */
  static FromRefusal of(List<Operation> history, Fault fault, long untilMillis, List<Refusal> refusals) {
    long refusedAt = refusals.stream()
        .filter(r -> r.node().equals(fault.node()) && r.atMillis() >= fault.atMillis() && r.atMillis() < untilMillis)
        .mapToLong(Refusal::atMillis).min().orElse(-1);
    if (refusedAt < 0) {
      return new FromRefusal(NO_REFUSAL_SEEN, NO_REFUSAL_SEEN, NO_REFUSAL_SEEN, 0);
    }
    long faultToRefusal = refusedAt - fault.atMillis();
    Set<Integer> affected = HistoryChecker.affected(history, fault);
    if (affected.isEmpty()) {
      return new FromRefusal(faultToRefusal, Verdict.NO_USER_AFFECTED, Verdict.NO_USER_AFFECTED, 0);
    }
    Map<Integer, Long> ends = HistoryChecker.firstSuccessEnds(history, fault, affected);
    if (ends.isEmpty()) {
      return new FromRefusal(faultToRefusal, Verdict.NOT_SERVED, Verdict.NOT_SERVED, 0);
    }
    int before = (int) ends.values().stream().filter(end -> end < refusedAt).count();
    List<Long> times = ends.values().stream().map(end -> Math.max(0, end - refusedAt)).sorted().toList();
    return new FromRefusal(faultToRefusal, times.get((times.size() - 1) / 2),
        times.size() < affected.size() ? Verdict.NOT_SERVED : times.get(times.size() - 1), before);
  }
}
