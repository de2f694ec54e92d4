package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two embedded Tomcats configured through a real {@code context.xml}, real Grizzly and Hazelcast on loopback. One
 * client (one cookie jar, like a browser behind a load balancer) talks to either node.
 */
class TwoNodeFailoverIT {
  private final List<TomcatNode> nodes = new ArrayList<>();
  private final CookieManager cookies = new CookieManager();
  private final HttpClient client = HttpClient.newBuilder().cookieHandler(cookies).build();

  @TempDir Path work;

  @AfterEach
  void stop() throws Exception {
    for (TomcatNode node : nodes) {
      node.close();
    }
  }

  private void startCluster(String scope) throws Exception {
    String cluster = "tomcat-it-" + System.nanoTime();
    int m1 = TomcatNode.freePort();
    int m2 = TomcatNode.freePort();
    String members = "127.0.0.1:" + m1 + ",127.0.0.1:" + m2;
    for (int i = 0; i < 2; i++) {
      String attributes = "clusterName=\"" + cluster + "\" sharedSecret=\"integration-test-secret-123\" scope=\"" + scope
          + "\" transportPort=\"" + TomcatNode.freePort() + "\" membershipPort=\"" + (i == 0 ? m1 : m2) + "\" members=\"" + members + "\"";
      nodes.add(new TomcatNode(work, "n" + (i + 1), attributes));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(n -> n.manager().engine().buddy().isPresent()));
  }

  private String get(TomcatNode node, String pathAndQuery) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(node.url(pathAndQuery))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(pathAndQuery).isEqualTo(200);
    return response.body();
  }

  private String sessionCookie() {
    return cookies.getCookieStore().getCookies().stream().filter(c -> c.getName().equals("JSESSIONID"))
        .map(HttpCookie::getValue).findFirst().orElse(null);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void ownerStops_theOtherNodeServesEveryAcknowledgedAttribute_andTheCookieFollows(String scope) throws Exception {
    startCluster(scope);
    TomcatNode n1 = nodes.get(0);
    TomcatNode n2 = nodes.get(1);

    assertThat(get(n1, "/set?name=user&value=alice")).startsWith("ok ");
    assertThat(get(n1, "/set?name=step&value=2")).startsWith("ok ");
    assertThat(get(n1, "/append?value=book")).isEqualTo("ok 1");
    assertThat(get(n1, "/append?value=pen")).isEqualTo("ok 2");
    assertThat(sessionCookie()).endsWith(".n1");

    n1.close();
    nodes.remove(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());

    assertThat(get(n2, "/list")).isEqualTo("{list=[book, pen], step=2, user=alice}");
    assertThat(sessionCookie()).endsWith(".n2");
    assertThat(get(n2, "/get?name=user")).isEqualTo("alice");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void requestOnTheOtherNode_isServedFromItsBackup_andTheFormerOwnerLetsGo(String scope) throws Exception {
    startCluster(scope);
    TomcatNode n1 = nodes.get(0);
    TomcatNode n2 = nodes.get(1);
    get(n1, "/set?name=user&value=bob");

    assertThat(get(n2, "/get?name=user")).isEqualTo("bob");
    assertThat(sessionCookie()).endsWith(".n2");
    get(n2, "/set?name=user&value=bob-2");

    await().atMost(Duration.ofSeconds(10)).until(() -> n1.manager().findSessions().length == 0);
    assertThat(get(n2, "/get?name=user")).isEqualTo("bob-2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"MODIFIED_ATTRIBUTE"})
  void invalidatedSession_neverComesBackAfterFailover(String scope) throws Exception {
    startCluster(scope);
    TomcatNode n1 = nodes.get(0);
    TomcatNode n2 = nodes.get(1);
    get(n1, "/set?name=user&value=carol");
    String cookie = sessionCookie();
    get(n1, "/invalidate");

    n1.close();
    nodes.remove(n1);
    cookies.getCookieStore().removeAll();
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(n2.url("/get?name=user")))
        .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(response.body()).isEqualTo("no-session");
  }
}
