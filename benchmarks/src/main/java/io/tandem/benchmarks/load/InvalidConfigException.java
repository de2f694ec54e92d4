package io.tandem.benchmarks.load;

import java.util.List;

/**
 * A load configuration (profile, target or driver settings) was refused. Every violation is reported at once, each
 * naming the field, the value given and what is allowed, so one run of a misconfigured step fixes all of them.
 */
public final class InvalidConfigException extends IllegalArgumentException {

  private final transient List<String> violations;

  InvalidConfigException(String what, List<String> violations) {
    super("Invalid " + what + ": " + String.join("; ", violations));
    this.violations = List.copyOf(violations);
  }

  /** One entry per refused field, e.g. {@code users = 0 (must be between 1 and 1000000)}. */
  public List<String> violations() {
    return violations;
  }
}
