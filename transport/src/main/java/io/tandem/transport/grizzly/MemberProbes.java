package io.tandem.transport.grizzly;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.NodeId;
import io.tandem.transport.membership.ProbeOutcome;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Handshakes with members on short-lived connections of their own (see {@link MemberProbe}), so that membership can
 * admit only members that hold the secret, and the record of those that could not prove it.
 *
 * <p>Implementation notes: {@code refused} is a concurrent map written by the probe threads; the outcome is completed
 * on the probe thread with no lock held.
 */
final class MemberProbes {
  private final NodeId local;
  private final MemberProbe memberProbe;
  private final TransportThreads threads;
  private final Map<NodeId, String> refused = new ConcurrentHashMap<>();

  MemberProbes(NodeId local, MemberProbe memberProbe, TransportThreads threads) {
    this.local = local;
    this.memberProbe = memberProbe;
    this.threads = threads;
  }

  CompletableFuture<ProbeOutcome> probe(Member member) {
    CompletableFuture<ProbeOutcome> outcome = new CompletableFuture<>();
    try {
      threads.probe(() -> {
        ProbeOutcome result;
        try {
          result = memberProbe.probe(member);
        } catch (RuntimeException e) {
          result = ProbeOutcome.unreachable("probe failed: " + e);
        }
        if (result.status() == ProbeOutcome.Status.REFUSED) {
          refused.put(member.id(), result.detail());
        } else if (result.status() == ProbeOutcome.Status.AUTHENTICATED) {
          refused.remove(member.id());
        }
        outcome.complete(result);
      });
    } catch (RejectedExecutionException e) {
      outcome.complete(ProbeOutcome.unreachable("transport of " + local.value() + " is closed"));
    }
    return outcome;
  }

  /** Members whose last probe found they could not prove the secret, with why. */
  Map<NodeId, String> refused() {
    return Map.copyOf(refused);
  }

  int refusedCount() {
    return refused.size();
  }
}
