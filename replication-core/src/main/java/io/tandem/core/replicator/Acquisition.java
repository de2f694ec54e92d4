package io.tandem.core.replicator;

import io.tandem.core.session.SessionSnapshot;
import java.util.Optional;

/**
 * What {@link ReplicationEngine#acquire} found: the session's bytes, owned by this node from now on; or that no
 * member holds it; or that it may exist but could not be taken over now. In the last case the container must not
 * run the request with a new, empty session in its place: a retry in a moment finds the session.
 *
 * @param snapshot the session, when it was taken over
 * @param unavailable why a session that may exist could not be taken over; empty when it was, or exists nowhere
 */
public record Acquisition(Optional<SessionSnapshot> snapshot, Optional<String> unavailable) {
  /** No member that answered holds the session, and every member answered. */
  public static final Acquisition NOWHERE = new Acquisition(Optional.empty(), Optional.empty());

  public static Acquisition found(SessionSnapshot snapshot) {
    return new Acquisition(Optional.of(snapshot), Optional.empty());
  }

  public static Acquisition unavailable(String why) {
    return new Acquisition(Optional.empty(), Optional.of(why));
  }
}
