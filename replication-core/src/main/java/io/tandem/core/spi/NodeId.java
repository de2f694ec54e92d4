package io.tandem.core.spi;

import java.util.Objects;

/**
 * The stable name of one cluster member (in Tomcat, its jvmRoute). Printable ASCII without spaces, at most
 * {@value #MAX_LENGTH} characters, so it fits in session ids, cookies and log lines unchanged.
 */
public record NodeId(String value) implements Comparable<NodeId> {
  public static final int MAX_LENGTH = 64;

  public NodeId {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "node id must have 1 to " + MAX_LENGTH + " characters, got " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            "node id must be printable ASCII without spaces, got '" + value + "'");
      }
    }
  }

  public static NodeId of(String value) {
    return new NodeId(value);
  }

  @Override
  public int compareTo(NodeId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
