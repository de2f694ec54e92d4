package io.tandem.tomcat;

import java.util.List;

/**
 * A context names a cluster this node already runs, with settings that differ from those the running runtime was
 * started with: it cannot share that runtime, and it cannot start one of its own on the same cluster. The message
 * names each differing attribute with both values (secrets masked) and the context that started the runtime.
 */
final class ClusterSettingsMismatchException extends Exception {
  private static final long serialVersionUID = 1L;
  private final List<String> differences;

  ClusterSettingsMismatchException(String message, List<String> differences) {
    super(message);
    this.differences = List.copyOf(differences);
  }

  /** One line per differing attribute. */
  List<String> differences() {
    return differences;
  }
}
