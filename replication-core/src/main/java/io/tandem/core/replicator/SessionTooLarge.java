package io.tandem.core.replicator;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * A session's full copy would have been larger than {@code maxSessionSize}, so attributes were left out of it (sent as
 * removed: no copy keeps an older value of them). Sizes are in bytes as the wire carries the copy.
 *
 * @param bytes what the full copy would have been with every attribute
 * @param maxBytes the limit, {@code maxSessionSize}
 * @param leftOut the attributes left out, in the order they were, with what each would have taken
 * @param bytesAfter what the copy is without them; above {@code maxBytes} only when the session's metadata alone (its
 *     principal and notes) is, and then the copy holds no attribute at all
 */
public record SessionTooLarge(String sessionId, long bytes, long maxBytes, Map<String, Long> leftOut, long bytesAfter) {

  public SessionTooLarge {
    leftOut = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(leftOut));
  }

  /** Whether the copy fits now, without the attributes left out. */
  public boolean fitsNow() {
    return bytesAfter <= maxBytes;
  }

  /** For the log and the application's 500: the session, its size, the limit, and what was left out. */
  public String describe() {
    String names = leftOut.entrySet().stream().map(e -> "[" + e.getKey() + "] (" + e.getValue() + " bytes)")
        .collect(Collectors.joining(", "));
    String over = "session [" + sessionId + "] would be " + bytes + " bytes as a full copy, over maxSessionSize of "
        + maxBytes + " bytes";
    String out = leftOut.isEmpty() ? "" : "; attribute" + (leftOut.size() == 1 ? " " : "s ") + names
        + " left out of its replicated copy";
    return over + out + (fitsNow() ? "" : "; its metadata alone (principal, notes) is " + bytesAfter + " bytes");
  }
}
