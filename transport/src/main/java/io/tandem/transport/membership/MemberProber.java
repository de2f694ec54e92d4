package io.tandem.transport.membership;

import io.tandem.core.spi.Member;
import java.util.concurrent.CompletableFuture;

/** Checks, by a handshake with the shared secret, that a member is who it says and holds the secret. */
public interface MemberProber {
  /**
   * Runs a handshake with {@code member} at its advertised transport address. The future always completes
   * normally, on a thread of the prober's, holding no lock of the caller's.
   */
  CompletableFuture<ProbeOutcome> probe(Member member);
}
