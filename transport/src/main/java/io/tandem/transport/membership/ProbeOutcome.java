package io.tandem.transport.membership;

import java.util.Objects;

/**
 * What a handshake with a member found.
 *
 * @param status {@code AUTHENTICATED}: the member proved the shared secret; {@code REFUSED}: it answered and failed
 *     (wrong secret, cluster or protocol version: a definite verdict); {@code UNREACHABLE}: no verdict (no
 *     connection, closed or silent during the handshake); worth retrying
 * @param refusal why a {@code REFUSED} member was refused, so that a node refused by every member can say what to
 *     fix; {@link Refusal#NONE} for the other statuses
 * @param detail what happened, for the log and JMX
 */
public record ProbeOutcome(Status status, Refusal refusal, String detail) {
  public enum Status {
    AUTHENTICATED,
    REFUSED,
    UNREACHABLE
  }

  /** The kinds of refusal, each with its own advice to the operator. */
  public enum Refusal {
    NONE,
    /** It could not prove the shared secret, or answered as another node than the one dialed. */
    WRONG_SECRET,
    /** It belongs to another cluster. */
    WRONG_CLUSTER,
    /** It speaks no protocol version this node speaks. */
    PROTOCOL_VERSION,
    /** It advertises an address that is not host:port, or answered with something other than a readable handshake. */
    MISBEHAVED
  }

  public ProbeOutcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(refusal, "refusal");
    Objects.requireNonNull(detail, "detail");
    if ((status == Status.REFUSED) == (refusal == Refusal.NONE)) {
      throw new IllegalArgumentException("a " + status + " outcome with refusal " + refusal);
    }
  }

  public static ProbeOutcome authenticated() {
    return new ProbeOutcome(Status.AUTHENTICATED, Refusal.NONE, "authenticated");
  }

  public static ProbeOutcome refused(Refusal refusal, String why) {
    return new ProbeOutcome(Status.REFUSED, refusal, why);
  }

  public static ProbeOutcome unreachable(String why) {
    return new ProbeOutcome(Status.UNREACHABLE, Refusal.NONE, why);
  }
}
