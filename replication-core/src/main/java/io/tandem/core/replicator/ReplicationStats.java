package io.tandem.core.replicator;

import java.time.Duration;
import java.util.Optional;

/**
 * A point-in-time view of the engine's counters and gauges, for JMX, logs and tests.
 *
 * @param ownedSessions sessions this node owns (live and adopted)
 * @param sessionsWithoutBackup owned sessions of which the current buddy holds no copy right now
 * @param pausesDetected times this JVM did not run for longer than the pause threshold (each puts the node in
 *     quarantine: its sessions are confirmed with the cluster before they are served)
 * @param lastReprotection how long the last view change took to get every owned session protected again
 * @param backupSessions backups held for other owners
 * @param backupBytes bytes those backups hold
 * @param maxBackupBytes the bound on {@code backupBytes}: past it this node refuses new copies as a buddy
 * @param unconfirmedWrites SYNC flushes that no buddy acknowledged within the ack and settle timeouts (each one a
 *     503 for its request)
 * @param ackTimeouts SYNC waits given up on a buddy that did not acknowledge within the ack and settle timeouts while it
 *     stayed the buddy (the session was then re-sent or the request answered 503), and ASYNC updates not acknowledged in
 *     time (re-sent)
 * @param slowAcks SYNC waits that went past {@code ackTimeout} on a buddy whose connection stayed open: the request
 *     went on waiting for that acknowledgement instead of re-sending (a sign of a buddy behind: CPU, collection pauses);
 *     one that then gave up counts in {@code ackTimeouts} too
 * @param misjudgedViews views that showed this node alone while a member they dropped was still sending it replication
 *     traffic over an open connection: the node went into quarantine rather than adopt that member's sessions
 * @param attributesNotReplicable attribute values that could not be serialized (class not allowed, not
 *     serializable, too large); in SYNC each one a 500 for the request that set it
 * @param sessionsTooLarge copies (a flush's, or a re-protection's) that would have been larger than {@code
 *     maxSessionSize} and left attributes out; in SYNC a 500 for the request that set one of them
 * @param backupRefusalsFull updates and copies of this node's sessions its buddy refused because its backup store was
 *     full (also counted in {@code refusedByBuddy}); in SYNC each one a 503 for its request, and the session is sent
 *     again in full later
 * @param backupStoreRefusals copies and updates this node refused as a buddy because its backup store was at {@code
 *     maxBackupBytes}
 * @param handoversUndecided sessions this node handed to a member that asked ({@code Migrate}) and that has not yet
 *     shown it holds them: the copy and the buddy's copy are kept meanwhile (docs/protocol.md 6.5)
 * @param sessionsTakenBack handovers in which no member held or owned the session at the epoch handed out once the
 *     requester could no longer install the answer (its reply was lost, it died or left): owned here again
 */
public record ReplicationStats(
    int ownedSessions,
    int sessionsWithoutBackup,
    Optional<Duration> lastReprotection,
    int backupSessions,
    long backupBytes,
    long maxBackupBytes,
    long fullsSent,
    long deltasSent,
    long touchBatchesSent,
    long touchesSent,
    long invalidationsSent,
    long payloadBytesSent,
    long acks,
    long gapResends,
    long ackTimeouts,
    long sendFailures,
    long refusedByBuddy,
    long sessionsFenced,
    long asyncOverflows,
    long asyncQueued,
    long unsetMutationsDetected,
    long attributesNotReplicable,
    long stateTransferSessions,
    long stateTransferBytes,
    long sessionsAdopted,
    long sessionsPromoted,
    long sessionsMigratedIn,
    long sessionsMigratedOut,
    long sessionsHandedOff,
    long backupsExpired,
    long pausesDetected,
    long unconfirmedWrites,
    long slowAcks,
    long misjudgedViews,
    long sessionsTooLarge,
    long backupRefusalsFull,
    long backupStoreRefusals,
    int handoversUndecided,
    long sessionsTakenBack) {}
