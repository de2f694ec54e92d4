package io.tandem.drill;

import java.util.Map;

/** What stands between the drill's users and the Tomcat nodes, as in production. Thread-safe. */
interface LoadBalancer extends AutoCloseable {
  /** "sticky client" or "HAProxy 2.6 ..." for the report. */
  String describe();

  /**
   * Sends one request for a user whose cookie holds {@code sessionId} (null before it has one). {@code home} is the
   * index of the node a user without a session should land on, where the balancer lets the drill choose.
   */
  Answer send(String pathAndQuery, Map<String, String> form, String sessionId, int home);

  @Override
  void close();
}
