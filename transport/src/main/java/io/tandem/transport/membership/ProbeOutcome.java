package io.tandem.transport.membership;

import java.util.Objects;

/**
 * What a handshake with a member found.
 *
 * @param status {@code AUTHENTICATED}: the member proved the shared secret; {@code REFUSED}: it answered and failed
 *     (wrong secret, cluster or protocol version: a definite verdict); {@code UNREACHABLE}: no verdict (no
 *     connection, closed or silent during the handshake); worth retrying
 * @param detail what happened, for the log and JMX
 */
public record ProbeOutcome(Status status, String detail) {
  public enum Status {
    AUTHENTICATED,
    REFUSED,
    UNREACHABLE
  }

  public ProbeOutcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(detail, "detail");
  }

  public static ProbeOutcome authenticated() {
    return new ProbeOutcome(Status.AUTHENTICATED, "authenticated");
  }

  public static ProbeOutcome refused(String why) {
    return new ProbeOutcome(Status.REFUSED, why);
  }

  public static ProbeOutcome unreachable(String why) {
    return new ProbeOutcome(Status.UNREACHABLE, why);
  }
}
