package io.tandem.drill;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a tab's requests were answered between two of its acknowledged writes, in one line for an example the checker
 * reports: when a write finds an older session than the acknowledged one before it, the answers in between (how many
 * of each cause, from which nodes), the time between the two, and the session ids the two were sent with tell a
 * reader of a CI log which path lost the state without the run's files.
 */
final class InBetween {
  private InBetween() {}

  /**
   * @param tabWrites one tab's writes of one generation, in order ({@code earlier} and {@code later} among them)
   * @param earlier the acknowledged write before, or null when {@code later} is the first
   */
  static String of(List<Operation> tabWrites, Operation earlier, Operation later) {
    if (earlier == null) {
      return "its first acknowledged write, sent with session " + later.sessionId();
    }
    List<Operation> between = tabWrites.stream()
        .filter(o -> o.tab() == later.tab() && o.seq() > earlier.seq() && o.seq() < later.seq())
        .toList();
    Map<String, Long> answers = between.stream().collect(Collectors.groupingBy(InBetween::answer, TreeMap::new, Collectors.counting()));
    return (later.endedMillis() - earlier.endedMillis()) + " ms later; in between " + between.size() + " writes answered "
        + answers + "; sent with session " + earlier.sessionId() + ", then " + later.sessionId();
  }

  private static String answer(Operation op) {
    String what = op.acknowledged() ? "ok" : op.cause().isEmpty() ? op.outcome().toString() : op.cause();
    return op.node().isEmpty() ? what : what + " from " + op.node();
  }
}
