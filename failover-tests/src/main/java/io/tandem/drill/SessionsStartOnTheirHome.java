package io.tandem.drill;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Places every new session on the node its user's {@code home} names, whatever the balancer in front does: a user's
 * request without a session goes straight to that node, and the rest go through the balancer, whose stickiness (the
 * jvmRoute suffix) keeps the session there. HAProxy and httpd spread new sessions round-robin and ignore {@code home};
 * a drill whose faults count on which node owns the sessions (full-buddy: the first node's buddy has the small store)
 * must place them itself. A home that cannot be reached (killed) leaves the choice to the balancer. Thread-safe;
 * closing it leaves the balancer to its owner.
 */
final class SessionsStartOnTheirHome implements LoadBalancer {
  private final LoadBalancer balancer;
  private final List<TomcatProcess> nodes;
  private final HttpExchange direct = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(4));

  SessionsStartOnTheirHome(LoadBalancer balancer, List<TomcatProcess> nodes) {
    this.balancer = balancer;
    this.nodes = List.copyOf(nodes);
  }

  @Override
  public String describe() {
    return balancer.describe() + ", sessions started on their node";
  }

  @Override
  public Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home) {
    if (sessionId != null) {
      return balancer.send(pathAndQuery, form, sessionId, home);
    }
    Answer placed = direct.send(nodes.get(home % nodes.size()).url(""), pathAndQuery, form, null);
    // Its home gone (killed), a new session starts wherever the balancer sends it, as a user's would.
    return placed.delivery() == Answer.Delivery.NOT_SENT ? balancer.send(pathAndQuery, form, null, home) : placed;
  }

  @Override
  public void close() {}
}
