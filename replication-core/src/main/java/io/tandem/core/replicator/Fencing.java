package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Lets go of a session another node owns now, or that nobody does: it is fenced (no flush of it is acknowledged from
 * then on), forgotten by every part that tracks its id here, and the container is told to drop its copy.
 *
 * <p>Implementation notes: no state of its own; {@link OwnedSession#fence} decides, under the session's lock, which
 * caller retires it (the first), and retiring takes no lock of its own. Called on request, transport and maintenance
 * threads.
 */
final class Fencing {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final OwnedSessions owned;
  private final Migrations migrations;
  private final Quarantine quarantine;
  private final BackupStore backups;
  private final ReplicationCounters counters;
  private final ReplicationListener listener;

  Fencing(OwnedSessions owned, Migrations migrations, Quarantine quarantine, BackupStore backups,
      ReplicationCounters counters, ReplicationListener listener) {
    this.owned = owned;
    this.migrations = migrations;
    this.quarantine = quarantine;
    this.backups = backups;
    this.counters = counters;
    this.listener = listener;
  }

  void fence(OwnedSession session, String reason) {
    if (session.fence()) {
      retire(session, reason);
    }
  }

  /**
   * Drops this node's copy in favour of an owner at an older epoch (see {@link Quarantine.Engine#yieldTo}). In this
   * order: fenced, an update of the owner meets an inactive copy and is refused without a verdict
   * ({@link IncomingRequests}); then the adoption's refusal of the owner's epoch is lifted; only then is the copy
   * forgotten, and the owner's updates are stored here as a backup. Never the INVALIDATED refusal that would make the
   * owner drop the newest copy.
   */
  void yieldTo(OwnedSession session, String reason) {
    if (session.fence()) {
      backups.stopRefusingBelow(session.id(), session.epoch());
      retire(session, reason);
    }
  }

  /** Forgets a session that was just fenced here, and tells the container to drop its copy. */
  void retire(OwnedSession session, String reason) {
    owned.retire(session);
    migrations.fencedHere(session.id());
    quarantine.forget(session, session.id());
    counters.sessionsFenced.increment();
    LOG.log(Level.WARNING, "Session [{0}] is owned by another node now; dropping it here ({1})", session.id(), reason);
    listener.sessionFenced(session.id(), reason);
  }
}
