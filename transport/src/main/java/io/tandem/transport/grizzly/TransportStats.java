package io.tandem.transport.grizzly;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * Counters of one Grizzly transport, for JMX and tests.
 *
 * @param authenticationFailures peers that spoke the handshake and were refused: wrong secret, another cluster or
 *     protocol version (the causes whose {@link RefusalCause#failedAuthentication()} is true)
 * @param refusedFrames frames refused (oversized, malformed, unknown type or version) on connections kept open
 * @param corruptConnections connections closed because framing was lost
 * @param backPressureRefusals requests refused because a peer's outbound queue was full
 * @param refusals every refusal by cause, including the above
 * @param unauthenticatedConnections accepted connections now in their handshake
 * @param refusedMembers members of the view whose last probe found they could not prove the secret
 * @param framesWritten frames written (requests, replies, handshakes), and {@code writes} the socket writes they
 *     took: their ratio is the group commit's batch size
 * @param callerWrites of those writes, the ones a requesting thread made itself on an idle connection, without
 *     waking the I/O thread
 * @param rangeAcks cumulative acknowledgements received, each standing for one or more requests
 * @param acksForNothingSent replies naming a request id this node never sent on that connection (refused, and
 *     counted among {@code refusedFrames} too)
 */
public record TransportStats(
    long connectionsAccepted,
    long connectionsDialed,
    long authenticationFailures,
    long refusedFrames,
    long corruptConnections,
    long backPressureRefusals,
    long requestsSent,
    long requestsTimedOut,
    long requestsServed,
    Map<RefusalCause, Long> refusals,
    int unauthenticatedConnections,
    int refusedMembers,
    long framesWritten,
    long writes,
    long callerWrites,
    long rangeAcks,
    long acksForNothingSent) {

  public TransportStats {
    refusals = Map.copyOf(refusals);
  }

  public long refusals(RefusalCause cause) {
    return refusals.getOrDefault(cause, 0L);
  }

  /** {@code CAUSE=n} for every cause that occurred, for one JMX attribute an operator can read. */
  public String describeRefusals() {
    return refusals.entrySet().stream().filter(e -> e.getValue() > 0).sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
  }
}
