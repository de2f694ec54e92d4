package io.tandem.core.replicator;

import java.util.Optional;

/**
 * Whether a request for a session may run on this node now (see {@link ReplicationEngine#admit}).
 *
 * @param refusal why the request must not run here now; empty when it may
 * @param fetchFirst the session must be fetched from the cluster before the request runs, and the request must not
 *     run without it (this node's copy was stale or it holds none it may trust)
 */
public record Admission(Optional<String> refusal, boolean fetchFirst) {
  public static final Admission ADMITTED = new Admission(Optional.empty(), false);
  public static final Admission FETCH_FIRST = new Admission(Optional.empty(), true);

  public static Admission refused(String why) {
    return new Admission(Optional.of(why), false);
  }
}
