package io.tandem.drill;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The refused connections the drill's own client met, per node, in the order they came back ({@link FromRefusal}
 * times failover from the first one after a fault). Only the in-process balancer sees them: behind HAProxy or httpd
 * the refusal is the balancer's, and the drill's client gets the balancer's answer.
 *
 * <p>Implementation notes: written by every user thread, read by the drill thread once the load has finished; a
 * concurrent queue, nothing else shared.
 */
final class Refusals {
  private final ConcurrentLinkedQueue<Refusal> seen = new ConcurrentLinkedQueue<>();

  /** A connection to {@code node} was refused just now. */
  void record(String node) {
    seen.add(new Refusal(node, System.currentTimeMillis()));
  }

  List<Refusal> snapshot() {
    return List.copyOf(seen);
  }
}
