package io.tandem.tomcat;

import io.tandem.core.session.Blob;
import java.security.Principal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The authenticated principal and the notes of one session (what keeps its user logged in after a failover) as a
 * flush last encoded them. Every flush sends them, but they change only at login, logout and in the steps of a FORM
 * login: a flush encodes again only a principal or a note that is not the very object encoded last time, and
 * otherwise hands the engine the same blob and the same notes map, which it compares by reference first.
 *
 * <p>Why by reference: Tomcat stores a new object with {@code setNote} or {@code setPrincipal} whenever one of them
 * changes (a saved request is filled in before it is stored); nothing in Tomcat changes a stored note in place. A
 * note that cannot be replicated is logged when it is stored, not again on every request.
 *
 * <p>Immutable: the session keeps the newest in a volatile field; two flushes that refresh it at once (a migration
 * encodes outside the engine's session lock) both build a correct one.
 *
 * @param noteValues every note the session held, by name, including those that are not replicated
 * @param notes the replicated notes' bytes
 */
record EncodedLogin(Principal principal, Blob principalBlob, Map<String, Object> noteValues, Map<String, Blob> notes) {
  static final EncodedLogin NONE = new EncodedLogin(null, null, Map.of(), Map.of());

  /** How a principal and a note are encoded (the manager's metadata codec). */
  interface Encoder {
    Blob principal(Principal principal);

    Optional<Blob> note(Object note);
  }

  /** This, when the session still holds the same principal and notes; otherwise what they encode to now. */
  EncodedLogin refresh(Principal currentPrincipal, Map<String, Object> currentNotes, Encoder encoder) {
    boolean samePrincipal = currentPrincipal == principal;
    if (samePrincipal && sameNotes(currentNotes)) {
      return this;
    }
    Blob principalNow = samePrincipal ? principalBlob : encoder.principal(currentPrincipal);
    Map<String, Object> values = new HashMap<>();
    Map<String, Blob> blobs = new HashMap<>();
    for (Map.Entry<String, Object> note : currentNotes.entrySet()) {
      String name = note.getKey();
      Object value = note.getValue();
      values.put(name, value);
      Blob blob = noteValues.get(name) == value ? notes.get(name) : encoder.note(value).orElse(null);
      if (blob != null) {
        blobs.put(name, blob);
      }
    }
    return new EncodedLogin(currentPrincipal, principalNow, Map.copyOf(values), Map.copyOf(blobs));
  }

  private boolean sameNotes(Map<String, Object> currentNotes) {
    if (currentNotes.size() != noteValues.size()) {
      return false;
    }
    for (Map.Entry<String, Object> note : currentNotes.entrySet()) {
      if (noteValues.get(note.getKey()) != note.getValue()) {
        return false;
      }
    }
    return true;
  }
}
