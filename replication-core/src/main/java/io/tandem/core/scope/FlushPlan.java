package io.tandem.core.scope;

import java.util.Set;

/**
 * What one flush sends.
 *
 * @param names for {@link Kind#DELTA}, the attributes to send (the current value of each, or its removal)
 */
public record FlushPlan(Kind kind, Set<String> names) {
  public static final FlushPlan NOTHING = new FlushPlan(Kind.NOTHING, Set.of());
  public static final FlushPlan TOUCH = new FlushPlan(Kind.TOUCH, Set.of());
  public static final FlushPlan FULL = new FlushPlan(Kind.FULL, Set.of());

  public FlushPlan {
    names = Set.copyOf(names);
  }

  public static FlushPlan delta(Set<String> names) {
    return new FlushPlan(Kind.DELTA, names);
  }

  public enum Kind {
    /** The session was not used: nothing to send. */
    NOTHING,
    /** Only the access time moved: a coalesced touch, not a message of its own. */
    TOUCH,
    /** The whole session. */
    FULL,
    /** Changed attributes and the metadata. */
    DELTA
  }
}
