package io.tandem.drill;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One user behind a sticky load balancer: requests go to the node named by the session id's jvmRoute suffix;
 * when that node cannot be reached, the request is redispatched to the next node (HAProxy's {@code option
 * redispatch}). The user's cookie is tracked here, as a browser would.
 *
 * <p>Implementation notes: one instance per user thread; not thread-safe.
 */
final class StickyClient {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<TomcatProcess> nodes;
  private final int user;
  private String sessionId;

  StickyClient(List<TomcatProcess> nodes, int user) {
    this.nodes = nodes;
    this.user = user;
  }

  /** The response body and the node that answered, or empty with the outcome when no node answered. */
  record Answer(String body, String node, Outcome outcome) {}

  Answer get(String pathAndQuery) {
    int first = preferred();
    Outcome failure = Outcome.FAILED;
    for (int attempt = 0; attempt < nodes.size(); attempt++) {
      TomcatProcess node = nodes.get((first + attempt) % nodes.size());
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.url(pathAndQuery))).timeout(Duration.ofSeconds(10));
      if (sessionId != null) {
        request.header("Cookie", "JSESSIONID=" + sessionId);
      }
      try {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        response.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID="))
            .findFirst().ifPresent(c -> sessionId = c.substring("JSESSIONID=".length(), c.indexOf(';') < 0 ? c.length() : c.indexOf(';')));
        return new Answer(response.body().trim(), node.route, response.statusCode() == 200 ? Outcome.OK : Outcome.FAILED);
      } catch (ConnectException e) {
        failure = Outcome.FAILED; // nothing was sent: safe to redispatch
      } catch (HttpTimeoutException e) {
        return new Answer("", node.route, Outcome.UNKNOWN);
      } catch (IOException e) {
        // Sent, then the connection broke: the outcome is unknown; a browser would retry on another node.
        failure = Outcome.UNKNOWN;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Answer("", node.route, Outcome.UNKNOWN);
      }
    }
    return new Answer("", "none", failure);
  }

  private int preferred() {
    Optional<String> route = Optional.ofNullable(sessionId).filter(id -> id.contains(".")).map(id -> id.substring(id.indexOf('.') + 1));
    if (route.isPresent()) {
      for (int i = 0; i < nodes.size(); i++) {
        if (nodes.get(i).route.equals(route.get())) {
          return i;
        }
      }
    }
    return user % nodes.size();
  }

  String sessionId() {
    return sessionId;
  }
}
