package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import java.util.concurrent.atomic.LongAdder;

/** The engine's monotonic counters, written from any thread; read as a {@link ReplicationStats} snapshot. */
final class ReplicationCounters {
  final LongAdder fullsSent = new LongAdder();
  final LongAdder deltasSent = new LongAdder();
  final LongAdder touchBatchesSent = new LongAdder();
  final LongAdder touchesSent = new LongAdder();
  final LongAdder invalidationsSent = new LongAdder();
  final LongAdder payloadBytesSent = new LongAdder();
  final LongAdder acks = new LongAdder();
  final LongAdder gapResends = new LongAdder();
  final LongAdder ackTimeouts = new LongAdder();
  final LongAdder slowAcks = new LongAdder();
  final LongAdder misjudgedViews = new LongAdder();
  final LongAdder sendFailures = new LongAdder();
  final LongAdder refusedByBuddy = new LongAdder();
  /** Of {@code refusedByBuddy}: refusals because the buddy's backup store was at {@code maxBackupBytes}. */
  final LongAdder backupRefusalsFull = new LongAdder();
  final LongAdder sessionsFenced = new LongAdder();
  final LongAdder pausesDetected = new LongAdder();
  final LongAdder asyncOverflows = new LongAdder();
  final LongAdder unsetMutationsDetected = new LongAdder();
  final LongAdder attributesNotReplicable = new LongAdder();
  final LongAdder sessionsTooLarge = new LongAdder();
  final LongAdder stateTransferSessions = new LongAdder();
  final LongAdder stateTransferBytes = new LongAdder();
  final LongAdder sessionsAdopted = new LongAdder();
  final LongAdder sessionsPromoted = new LongAdder();
  final LongAdder sessionsMigratedIn = new LongAdder();
  final LongAdder sessionsMigratedOut = new LongAdder();
  final LongAdder sessionsHandedOff = new LongAdder();
  final LongAdder backupsExpired = new LongAdder();
  final LongAdder unconfirmedWrites = new LongAdder();
  final LongAdder sessionsTakenBack = new LongAdder();

  /** These counters now, with the gauges of the owned sessions, the backups held, the ASYNC queue and the handovers. */
  ReplicationStats stats(OwnedSessions owned, BackupStore.BackupStats backup, int asyncQueued, int handoversUndecided) {
    return new ReplicationStats(
        owned.size(),
        owned.unprotectedCount(),
        owned.lastRecovery(),
        backup.sessions(),
        backup.bytesHeld(),
        backup.maxBytes(),
        fullsSent.sum(),
        deltasSent.sum(),
        touchBatchesSent.sum(),
        touchesSent.sum(),
        invalidationsSent.sum(),
        payloadBytesSent.sum(),
        acks.sum(),
        gapResends.sum(),
        ackTimeouts.sum(),
        sendFailures.sum(),
        refusedByBuddy.sum(),
        sessionsFenced.sum(),
        asyncOverflows.sum(),
        asyncQueued,
        unsetMutationsDetected.sum(),
        attributesNotReplicable.sum(),
        stateTransferSessions.sum(),
        stateTransferBytes.sum(),
        sessionsAdopted.sum(),
        sessionsPromoted.sum(),
        sessionsMigratedIn.sum(),
        sessionsMigratedOut.sum(),
        sessionsHandedOff.sum(),
        backupsExpired.sum(),
        pausesDetected.sum(),
        unconfirmedWrites.sum(),
        slowAcks.sum(),
        misjudgedViews.sum(),
        sessionsTooLarge.sum(),
        backupRefusalsFull.sum(),
        backup.refusedFull(),
        handoversUndecided,
        sessionsTakenBack.sum());
  }
}
