package io.tandem.core.scope;

import io.tandem.core.config.ReplicationScope;
import java.util.Set;

/**
 * The rule each scope applies to a session's changes since its last flush. A pure function, so the table in the
 * README and this code can be checked against each other by a test.
 */
public final class ScopePolicy {
  private ScopePolicy() {}

  /**
   * @param accessed a request used the session since the last flush
   * @param changedNames attributes set or removed (or counted as changed by the mutation policy)
   * @param metadataChanged max inactive interval, principal, auth type or notes changed
   * @param needsFull the buddy's copy is missing or suspect (new session, new buddy, gap, timeout)
   */
  public static FlushPlan plan(
      ReplicationScope scope, boolean accessed, Set<String> changedNames, boolean metadataChanged, boolean needsFull) {
    boolean changed = !changedNames.isEmpty() || metadataChanged;
    if (!accessed && !changed) {
      return FlushPlan.NOTHING;
    }
    if (needsFull) {
      return FlushPlan.FULL;
    }
    return switch (scope) {
      case SESSION -> FlushPlan.FULL;
      case MODIFIED_SESSION -> changed ? FlushPlan.FULL : FlushPlan.TOUCH;
      case MODIFIED_ATTRIBUTE -> changed ? FlushPlan.delta(changedNames) : FlushPlan.TOUCH;
    };
  }
}
