package io.tandem.drill;

import java.util.Map;

/**
 * One user's browser: keeps the JSESSIONID cookie the way a browser does and sends through the load balancer.
 * Confined to one thread.
 */
final class Browser {
  private final LoadBalancer balancer;
  private final int home;
  private String sessionId;

  Browser(LoadBalancer balancer, int home) {
    this.balancer = balancer;
    this.home = home;
  }

  /** A second browser tab sharing this one's session (its cookie is copied now and tracked on its own after). */
  Browser tab() {
    Browser tab = new Browser(balancer, home);
    tab.sessionId = sessionId;
    return tab;
  }

  Answer get(String pathAndQuery) {
    return remember(balancer.send(pathAndQuery, null, sessionId, home));
  }

  Answer post(String path, Map<String, String> form) {
    return remember(balancer.send(path, form, sessionId, home));
  }

  private Answer remember(Answer answer) {
    if (answer.sessionId() != null) {
      sessionId = answer.sessionId();
    }
    return answer;
  }

  /** Adopts a cookie a response outside the balancer handed out. */
  void useSession(String id) {
    sessionId = id;
  }

  String sessionId() {
    return sessionId;
  }
}
