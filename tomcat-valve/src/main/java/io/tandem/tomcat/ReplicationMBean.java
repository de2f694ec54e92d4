package io.tandem.tomcat;

import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationStats;
import io.tandem.transport.grizzly.GrizzlyTransport;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The figures behind {@link ReplicationMXBean}: engine and transport counters, and a latency histogram of the
 * per-request replication step.
 *
 * <p>Implementation notes: request threads record into the {@link Recorder} (lock-free); JMX reads take an
 * interval snapshot under this object's lock and fold it into {@code total}, which only that lock guards.
 */
final class ReplicationMBean implements ReplicationMXBean {
  private final ReplicationEngine engine;
  private final GrizzlyTransport transport;
  /** The node's runtime, shared with the node's other applications: its refusals are the node's. */
  private final io.tandem.core.node.NodeRuntime runtime;
  private final ResponseCounters responses;
  private final RestoreCounters restores;
  private final Recorder recorder = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
  private final Histogram total = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);

  ReplicationMBean(ReplicationEngine engine, GrizzlyTransport transport, io.tandem.core.node.NodeRuntime runtime,
      ResponseCounters responses, RestoreCounters restores) {
    this.engine = engine;
    this.transport = transport;
    this.runtime = runtime;
    this.responses = responses;
    this.restores = restores;
  }

  void recordFlush(long nanos) {
    recorder.recordValue(Math.min(Math.max(nanos, 0), TimeUnit.SECONDS.toNanos(60)));
  }

  private synchronized Histogram latencies() {
    total.add(recorder.getIntervalHistogram());
    return total;
  }

  private ReplicationStats stats() {
    return engine.stats();
  }

  @Override
  public String getNodeId() {
    return engine.localNode().value();
  }

  @Override
  public String getScope() {
    return engine.config().scope().name();
  }

  @Override
  public String getMode() {
    return engine.config().mode().name();
  }

  @Override
  public String getBuddy() {
    return engine.buddy().map(b -> b.value()).orElse("");
  }

  @Override
  public String getMembers() {
    return engine.members().stream().map(m -> m.value()).collect(java.util.stream.Collectors.joining(","));
  }

  @Override
  public int getOwnedSessions() {
    return stats().ownedSessions();
  }

  @Override
  public int getBackupSessions() {
    return stats().backupSessions();
  }

  @Override
  public long getBackupBytes() {
    return stats().backupBytes();
  }

  @Override
  public long getMaxBackupBytes() {
    return stats().maxBackupBytes();
  }

  @Override
  public long getBackupStoreRefusals() {
    return stats().backupStoreRefusals();
  }

  @Override
  public long getBackupRefusalsFull() {
    return stats().backupRefusalsFull();
  }

  @Override
  public int getSessionsWithoutBackup() {
    return engine.sessionsWithoutBackup();
  }

  @Override
  public long getLastReprotectionMillis() {
    return engine.lastReprotectionTime().map(d -> d.toMillis()).orElse(-1L);
  }

  @Override
  public long getFullSessionsSent() {
    return stats().fullsSent();
  }

  @Override
  public long getDeltasSent() {
    return stats().deltasSent();
  }

  @Override
  public long getBytesReplicated() {
    return stats().payloadBytesSent();
  }

  @Override
  public long getAckTimeouts() {
    return stats().ackTimeouts();
  }

  @Override
  public long getSlowAcks() {
    return stats().slowAcks();
  }

  @Override
  public long getSendFailures() {
    return stats().sendFailures();
  }

  @Override
  public long getSessionsPromoted() {
    return stats().sessionsPromoted();
  }

  @Override
  public long getSessionsMigratedIn() {
    return stats().sessionsMigratedIn();
  }

  @Override
  public long getSessionsMigratedOut() {
    return stats().sessionsMigratedOut();
  }

  @Override
  public int getHandoversUndecided() {
    return stats().handoversUndecided();
  }

  @Override
  public long getSessionsTakenBack() {
    return stats().sessionsTakenBack();
  }

  @Override
  public long getSessionsHandedOff() {
    return stats().sessionsHandedOff();
  }

  @Override
  public long getSessionsFenced() {
    return stats().sessionsFenced();
  }

  @Override
  public long getPausesDetected() {
    return stats().pausesDetected();
  }

  @Override
  public long getMisjudgedViews() {
    return stats().misjudgedViews();
  }

  @Override
  public long getRequestsSent() {
    return transport.stats().requestsSent();
  }

  @Override
  public long getRequestsServed() {
    return transport.stats().requestsServed();
  }

  @Override
  public long getFramesWritten() {
    return transport.stats().framesWritten();
  }

  @Override
  public long getSocketWrites() {
    return transport.stats().writes();
  }

  @Override
  public long getCallerWrites() {
    return transport.stats().callerWrites();
  }

  @Override
  public long getAcksReceived() {
    return transport.stats().rangeAcks();
  }

  @Override
  public long getRefusedPeers() {
    return transport.stats().authenticationFailures();
  }

  @Override
  public long getRefusedNotDeployed() {
    return runtime.refusedNotDeployed();
  }

  @Override
  public long getRefusedWithoutApplication() {
    return runtime.refusedWithoutContext();
  }

  @Override
  public String getRefusalsByCause() {
    return transport.stats().describeRefusals();
  }

  @Override
  public int getUnauthenticatedConnections() {
    return transport.stats().unauthenticatedConnections();
  }

  @Override
  public String getRefusedMembers() {
    return transport.refusedMembers().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
        .map(e -> e.getKey().value() + " (" + e.getValue() + ")").collect(java.util.stream.Collectors.joining("; "));
  }

  @Override
  public String getProtocolVersions() {
    java.util.Map<io.tandem.core.spi.NodeId, Integer> byPeer = transport.protocolVersions();
    return transport.spokenVersions() + (byPeer.isEmpty() ? "" : byPeer.entrySet().stream()
        .map(e -> e.getKey().value() + "=" + e.getValue()).collect(java.util.stream.Collectors.joining(", ", "; ", "")));
  }

  @Override
  public long getUnsetMutationsDetected() {
    return stats().unsetMutationsDetected();
  }

  @Override
  public long getAttributesNotReplicable() {
    return stats().attributesNotReplicable();
  }

  @Override
  public long getAttributesUnreadable() {
    return restores.attributesUnreadable.sum();
  }

  @Override
  public long getLoginsUnreadable() {
    return restores.loginsUnreadable.sum();
  }

  @Override
  public long getSessionsTooLarge() {
    return stats().sessionsTooLarge();
  }

  @Override
  public long getAsyncOverflows() {
    return stats().asyncOverflows();
  }

  @Override
  public long getUnconfirmedWrites() {
    return stats().unconfirmedWrites();
  }

  @Override
  public long getResponses503NotAdmitted() {
    return responses.notAdmitted.sum();
  }

  @Override
  public long getResponses503TakeoverUnavailable() {
    return responses.takeoverUnavailable.sum();
  }

  @Override
  public long getResponses503Fenced() {
    return responses.fenced.sum();
  }

  @Override
  public long getResponses503Unconfirmed() {
    return responses.unconfirmed.sum();
  }

  @Override
  public long getResponses503InvalidationUnconfirmed() {
    return responses.endUnconfirmed.sum();
  }

  @Override
  public long getResponses500NotReplicable() {
    return responses.notReplicable.sum();
  }

  @Override
  public long getResponsesAlreadyCommitted() {
    return responses.alreadyCommitted.sum();
  }

  @Override
  public long getResponsesAnsweredAtCommit() {
    return responses.answeredAtCommit.sum();
  }

  @Override
  public long getResponsesAborted() {
    return responses.aborted.sum();
  }

  @Override
  public long getReplicationLatencyP50Micros() {
    return TimeUnit.NANOSECONDS.toMicros(latencies().getValueAtPercentile(50));
  }

  @Override
  public long getReplicationLatencyP90Micros() {
    return TimeUnit.NANOSECONDS.toMicros(latencies().getValueAtPercentile(90));
  }

  @Override
  public long getReplicationLatencyP99Micros() {
    return TimeUnit.NANOSECONDS.toMicros(latencies().getValueAtPercentile(99));
  }

  @Override
  public long getReplicationLatencyMaxMicros() {
    return TimeUnit.NANOSECONDS.toMicros(latencies().getMaxValue());
  }
}
