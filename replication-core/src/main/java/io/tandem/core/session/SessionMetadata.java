package io.tandem.core.session;

import java.util.Map;
import java.util.Objects;

/**
 * Everything about a session that is not an attribute and must survive a failover: times, the inactivity limit,
 * and what keeps a user logged in (principal, auth type, container notes such as FORM-login state). The principal
 * and notes are serialized by the container adapter with the session's codec.
 *
 * @param maxInactiveIntervalSeconds zero or negative means the session never expires, as in the Servlet API
 * @param authType null when nobody is authenticated
 * @param principal null when nobody is authenticated
 */
public record SessionMetadata(
    long creationTime,
    long lastAccessedTime,
    int maxInactiveIntervalSeconds,
    String authType,
    Blob principal,
    Map<String, Blob> notes) {

  public SessionMetadata {
    notes = Map.copyOf(Objects.requireNonNull(notes, "notes"));
  }

  public static SessionMetadata created(long now, int maxInactiveIntervalSeconds) {
    return new SessionMetadata(now, now, maxInactiveIntervalSeconds, null, null, Map.of());
  }

  /**
   * Equal to this but for the last access time: {@code equals(other.withLastAccessedTime(lastAccessedTime()))}, without
   * the copy (asked on every flush).
   */
  public boolean sameExceptAccessTime(SessionMetadata other) {
    return creationTime == other.creationTime && maxInactiveIntervalSeconds == other.maxInactiveIntervalSeconds
        && Objects.equals(authType, other.authType) && Objects.equals(principal, other.principal)
        && notes.equals(other.notes);
  }

  public SessionMetadata withLastAccessedTime(long time) {
    return new SessionMetadata(creationTime, time, maxInactiveIntervalSeconds, authType, principal, notes);
  }

  /** Whether the session has been idle past its limit at {@code now}, allowing {@code graceMillis} more. */
  public boolean isExpiredAt(long now, long graceMillis) {
    return maxInactiveIntervalSeconds > 0
        && now - lastAccessedTime >= maxInactiveIntervalSeconds * 1000L + graceMillis;
  }

  /** Bytes this metadata holds in serialized form, for the backup store's accounting. */
  public long serializedSize() {
    long size = Long.BYTES * 2 + Integer.BYTES;
    size += authType == null ? 0 : authType.length();
    size += principal == null ? 0 : principal.size();
    if (notes.isEmpty()) {
      return size; // the usual case; an empty map's entry set and iterator are objects too, several per update
    }
    for (Map.Entry<String, Blob> note : notes.entrySet()) {
      size += note.getKey().length() + note.getValue().size();
    }
    return size;
  }
}
