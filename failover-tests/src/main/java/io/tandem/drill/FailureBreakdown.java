package io.tandem.drill;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The requests of a drill's history that were not acknowledged, counted by cause ({@link Operation#cause()}): what
 * "requests failed 7" was made of (connections refused while a node was down, values refused, 503s by reason).
 */
final class FailureBreakdown {
  private FailureBreakdown() {}

  /** Per cause, the requests with {@code outcome}; the most frequent first, ties by name. */
  static Map<String, Integer> of(List<Operation> history, Outcome outcome) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Operation op : history) {
      if (op.outcome() == outcome) {
        counts.merge(op.cause().isEmpty() ? "no cause recorded" : op.cause(), 1, Integer::sum);
      }
    }
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }

  /** {@code " (cause n, cause n)"}, or "" when there is nothing to break down. */
  static String describe(Map<String, Integer> byCause) {
    if (byCause.isEmpty()) {
      return "";
    }
    return byCause.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ", " (", ")"));
  }
}
