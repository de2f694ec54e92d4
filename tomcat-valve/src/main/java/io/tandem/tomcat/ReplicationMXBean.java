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

  /** The bound on {@code BackupBytes} ({@code maxBackupBytes}): past it this node refuses new copies as a buddy. */
  long getMaxBackupBytes();

  /** Copies and updates this node refused as a buddy because {@code BackupBytes} was at {@code MaxBackupBytes}. */
  long getBackupStoreRefusals();

  /**
   * Updates and copies of this node's sessions that its buddy refused because its backup store was full: each a 503
   * in SYNC, the session sent in full again later. Alert on any: raise the buddy's {@code maxBackupBytes} or heap.
   */
  long getBackupRefusalsFull();

  /** Owned sessions of which the current buddy holds no copy right now; should be 0. */
  int getSessionsWithoutBackup();

  /** How long the last membership change took to get every session protected again, in ms (-1: none yet). */
  long getLastReprotectionMillis();

  long getFullSessionsSent();

  long getDeltasSent();

  /** Attribute bytes replicated by this node's flushes (the configured scope decides how many). */
  long getBytesReplicated();

  /** SYNC waits given up on a buddy that did not acknowledge within ackTimeout + settleTimeout; ASYNC updates re-sent. */
  long getAckTimeouts();

  /** SYNC acknowledgements that came after ackTimeout from a buddy still connected: waited for, not re-sent. */
  long getSlowAcks();

  long getSendFailures();

  long getSessionsPromoted();

  long getSessionsMigratedIn();

  long getSessionsMigratedOut();

  /**
   * Sessions this node handed to a member that asked for them and that has not yet shown it holds them; this node and
   * its buddy keep their copies meanwhile. Back to 0 within {@code ackTimeout + settleTimeout} of the last migration.
   */
  int getHandoversUndecided();

  /** Handovers whose requester never installed the answer (lost reply, died, left): owned here again. */
  long getSessionsTakenBack();

  long getSessionsHandedOff();

  long getSessionsFenced();

  /** Times this JVM did not run for longer than the pause threshold and put itself in quarantine. */
  long getPausesDetected();

  /** Views of this node alone that dropped a member still sending it replication traffic (quarantine, no adoption). */
  long getMisjudgedViews();

  /** Replication requests this node sent to its peers (updates, full sessions, invalidations, state transfer). */
  long getRequestsSent();

  /** Replication requests this node served for its peers, as their buddy. */
  long getRequestsServed();

  /** Frames this node's transport wrote: requests, acknowledgements, handshakes. */
  long getFramesWritten();

  /** Socket writes those frames took; {@code FramesWritten / SocketWrites} is the group commit's batch size. */
  long getSocketWrites();

  /** Of {@code SocketWrites}, those a waiting request thread made itself on an idle connection. */
  long getCallerWrites();

  /** Cumulative acknowledgements received, each standing for one or more of {@code RequestsSent}. */
  long getAcksReceived();

  /** Peers that spoke the handshake and were refused: wrong secret, another cluster or no protocol version in common. */
  long getRefusedPeers();

  /**
   * Requests for an application this node does not run, refused (CONTEXT_NOT_DEPLOYED): during a deploy, or an
   * application missing here. The node's figure, the same in each application's bean.
   */
  long getRefusedNotDeployed();

  /** Requests that named no application, refused: a peer that speaks another protocol. The node's figure. */
  long getRefusedWithoutApplication();

  /** Every refusal by cause since start, {@code CAUSE=n,...} (causes that never occurred are left out). */
  String getRefusalsByCause();

  /** Accepted connections now in their handshake (bounded by maxUnauthenticatedConnections). */
  int getUnauthenticatedConnections();

  /** Members of the view that failed to prove the shared secret, never chosen as buddy: {@code id (why); ...}. */
  String getRefusedMembers();

  /**
   * The protocol versions this node speaks, then the version each connected peer speaks with it: {@code 5 to 6;
   * n2=6, n3=5}, or only {@code 5 to 6} with no peer connected (during a rolling upgrade, the connections to nodes not
   * yet upgraded speak the older version).
   */
  String getProtocolVersions();

  long getUnsetMutationsDetected();

  /** Attribute values (and principals) that could not be serialized; in SYNC each one answered 500. Alert on any. */
  long getAttributesNotReplicable();

  /**
   * Attribute values of sessions taken over that this node could not decode when the application first read them
   * (class missing here, outside {@code allowedClasses}, or changed incompatibly by a deploy): each dropped alone, its
   * session kept. Logged (at most one line per class every 10 s) naming the session, the attribute and the class.
   */
  long getAttributesUnreadable();

  /**
   * Sessions taken over whose principal or a login note this node could not decode: their users log in again; the
   * sessions kept their attributes. Logged naming the session and the class.
   */
  long getLoginsUnreadable();

  /**
   * Session copies that would have been larger than {@code maxSessionSize}: attributes were left out (in SYNC a 500 for
   * the request that set one). Alert on any.
   */
  long getSessionsTooLarge();

  /** ASYNC: updates that found the queue full (the session is re-sent in full later). */
  long getAsyncOverflows();

  /** SYNC flushes no buddy acknowledged within ackTimeout plus settleTimeout (each a 503). */
  long getUnconfirmedWrites();

  /** 503 before running: the session is not trusted here after a pause (quarantine). */
  long getResponses503NotAdmitted();

  /** 503 before running: the session exists but could not be taken over now. */
  long getResponses503TakeoverUnavailable();

  /** 503: another node took the session over while the request ran; its changes were not kept. */
  long getResponses503Fenced();

  /** 503: SYNC, no buddy acknowledged the request's changes in time (unknown outcome). */
  long getResponses503Unconfirmed();

  /** 503: the buddy did not acknowledge the request's invalidation or id change in time (both modes). */
  long getResponses503InvalidationUnconfirmed();

  /** 500: SYNC, a value the request stored cannot be replicated. */
  long getResponses500NotReplicable();

  /**
   * One of the above found after an asynchronous response ended without passing through Tandem (its commit cannot be
   * seen in this Tomcat, as the start log says): logged; the client saw the application's answer. Zero elsewhere.
   */
  long getResponsesAlreadyCommitted();

  /** One of the above found as the response committed (before its first byte was sent): answered 500 or 503. */
  long getResponsesAnsweredAtCommit();

  /** One of the above found after the response committed: aborted, so the client saw a failed request. */
  long getResponsesAborted();

  long getReplicationLatencyP50Micros();

  long getReplicationLatencyP90Micros();

  long getReplicationLatencyP99Micros();

  long getReplicationLatencyMaxMicros();
}
