package io.tandem.tomcat;

/**
 * What an operator watches, per Tandem manager: {@code io.tandem:type=Replication,node=<node>,context=<path>}.
 * Latencies are those of the replication step at the end of a request (SYNC: until the buddy's ack).
 */
public interface ReplicationMXBean {
  String getNodeId();

  String getScope();

  String getMode();

  String getBuddy();

  /** The members of the view this node acts on, comma-separated. */
  String getMembers();

  int getOwnedSessions();

  int getBackupSessions();

  long getBackupBytes();

  /** Owned sessions of which the current buddy holds no copy right now; should be 0. */
  int getSessionsWithoutBackup();

  /** How long the last membership change took to get every session protected again, in ms (-1: none yet). */
  long getLastReprotectionMillis();

  long getFullSessionsSent();

  long getDeltasSent();

  /** Attribute bytes replicated by this node's flushes (the configured scope decides how many). */
  long getBytesReplicated();

  long getAckTimeouts();

  long getSendFailures();

  long getSessionsPromoted();

  long getSessionsMigratedIn();

  long getSessionsMigratedOut();

  long getSessionsHandedOff();

  long getSessionsFenced();

  /** Times this JVM did not run for longer than the pause threshold and put itself in quarantine. */
  long getPausesDetected();

  /** Peers that spoke the handshake and were refused: wrong secret, another cluster or protocol version. */
  long getRefusedPeers();

  /** Every refusal by cause since start, {@code CAUSE=n,...} (causes that never occurred are left out). */
  String getRefusalsByCause();

  /** Accepted connections now in their handshake (bounded by maxUnauthenticatedConnections). */
  int getUnauthenticatedConnections();

  /** Members of the view that failed to prove the shared secret, never chosen as buddy: {@code id (why); ...}. */
  String getRefusedMembers();

  long getUnsetMutationsDetected();

  long getReplicationLatencyP50Micros();

  long getReplicationLatencyP90Micros();

  long getReplicationLatencyP99Micros();

  long getReplicationLatencyMaxMicros();
}
