package io.tandem.core.config;

import java.util.List;

/** The configuration has one or more invalid values; every violation is listed, each naming the attribute. */
public final class InvalidConfigurationException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient List<String> violations;

  public InvalidConfigurationException(List<String> violations) {
    super("invalid Tandem configuration:\n  - " + String.join("\n  - ", violations));
    this.violations = List.copyOf(violations);
  }

  public List<String> violations() {
    return violations;
  }
}
