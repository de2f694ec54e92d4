package io.tandem.drill;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sticky load balancer in the drill's process, configured as operators configure HAProxy for Tomcat: a session
 * goes to the node its id's jvmRoute suffix names; a request that cannot be connected goes to the next node
 * ({@code option redispatch}); a node that refused a connection or let a request time out is taken out of the
 * rotation for a while (health checks with {@code fall 1}). A request that was sent is never sent twice. Every
 * refused connection is recorded ({@link Refusals}): the moment a balancer could first send a dead node's users
 * elsewhere.
 *
 * <p>Implementation notes: {@code downUntil} (node route to nano time) is a concurrent map and {@code refusals}
 * thread-safe; nothing else is shared.
 */
final class StickyBalancer implements LoadBalancer {
  private static final Duration DOWN_AFTER_FAILURE = Duration.ofSeconds(3);
  private final List<TomcatProcess> nodes;
  private final HttpExchange http;
  private final Map<String, Long> downUntil = new ConcurrentHashMap<>();
  private final Refusals refusals;

  /** @param refusals where the connections a node refused are recorded */
  StickyBalancer(List<TomcatProcess> nodes, Refusals refusals) {
    this(nodes, Duration.ofSeconds(4), refusals);
  }

  /**
   * @param requestTimeout how long a request may go unanswered before it is unknown and its node taken out
   * @param refusals where the connections a node refused are recorded
   */
  StickyBalancer(List<TomcatProcess> nodes, Duration requestTimeout, Refusals refusals) {
    this.nodes = List.copyOf(nodes);
    this.http = new HttpExchange(Duration.ofSeconds(1), requestTimeout);
    this.refusals = refusals;
  }

  @Override
  public String describe() {
    return "sticky client (jvmRoute, redispatch)";
  }

  @Override
  public Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home) {
    int first = preferred(sessionId, home);
    Answer notSent = Answer.notSent("not sent: every node is marked down");
    for (int attempt = 0; attempt < nodes.size(); attempt++) {
      TomcatProcess node = nodes.get((first + attempt) % nodes.size());
      if (isDown(node) && attempt < nodes.size() - 1) {
        continue;
      }
      Answer answer = http.send(node.url(""), pathAndQuery, form, sessionId);
      if (answer.delivery() == Answer.Delivery.ANSWERED) {
        return answer;
      }
      if (answer.refused()) {
        refusals.record(node.route);
      }
      downUntil.put(node.route, System.nanoTime() + DOWN_AFTER_FAILURE.toNanos());
      if (answer.delivery() == Answer.Delivery.UNKNOWN) {
        return answer;
      }
      notSent = answer;
    }
    return notSent;
  }

  private boolean isDown(TomcatProcess node) {
    Long until = downUntil.get(node.route);
    return until != null && System.nanoTime() < until;
  }

  private int preferred(String sessionId, int home) {
    if (sessionId != null && sessionId.contains(".")) {
      String route = sessionId.substring(sessionId.indexOf('.') + 1);
      for (int i = 0; i < nodes.size(); i++) {
        if (nodes.get(i).route.equals(route)) {
          return i;
        }
      }
    }
    return Math.floorMod(home, nodes.size());
  }

  @Override
  public void close() {
    // nothing held
  }
}
