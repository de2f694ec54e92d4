package io.tandem.benchmarks.replication;

import java.util.Map;

/** What one node process runs, behind the control protocol of {@link ReplicationNodeMain}. */
interface BenchNode {

  /** Blocks until the node is connected and ready to take load; returns fields for the READY line. */
  Map<String, String> awaitReady() throws Exception;

  /** The owner starts its writers; the buddy has nothing to start. */
  void startLoad();

  /** Updates completed (owner: acknowledged, or in ASYNC accepted into the queue) or applied (buddy) so far. */
  long updates();

  /**
   * Messages behind {@link #updates()}: the buddy's requests handled (fewer than its updates when the owner's queue
   * coalesced several updates into one message), the owner's flushes whatever their outcome.
   */
  default long requests() {
    return updates();
  }

  /** Updates that did not complete as acknowledged (owner), so far. */
  long failed();

  /** A failure that stopped the node's load, or null. */
  Throwable failure();

  /** Fields for the STOPPED line: what the run learned besides the marks. */
  Map<String, String> summary();

  /** Stops the load and the node; called once. */
  void stop() throws Exception;
}
