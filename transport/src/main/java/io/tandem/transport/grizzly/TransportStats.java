package io.tandem.transport.grizzly;

/**
 * Counters of one Grizzly transport, for JMX and tests.
 *
 * @param authenticationFailures connections refused because the peer could not prove the shared secret, or spoke
 *     another cluster or protocol version
 * @param refusedFrames frames refused (oversized, malformed, unknown type or version) on connections kept open
 * @param corruptConnections connections closed because framing was lost
 * @param backPressureRefusals requests refused because a peer's outbound queue was full
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
    long requestsServed) {}
