package io.tandem.drill;

import java.util.Set;

/**
 * One fault the drill injected: what, to which node, when (epoch millis).
 *
 * @param dependents the other nodes whose users the fault affects too: those whose buddy was the faulted node, so
 *     that their SYNC writes waited on it (empty when the drill does not say)
 */
record Fault(String what, String node, long atMillis, Set<String> dependents) {
  Fault {
    dependents = Set.copyOf(dependents);
  }

  Fault(String what, String node, long atMillis) {
    this(what, node, atMillis, Set.of());
  }

  /** Whether a user last served by {@code route} before the fault is affected by it. */
  boolean affects(String route) {
    return node.equals(route) || dependents.contains(route);
  }
}
