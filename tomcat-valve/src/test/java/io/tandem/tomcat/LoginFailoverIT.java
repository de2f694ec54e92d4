package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What keeps a user logged in survives failover: the session id changed at login ({@code changeSessionId}), the
 * authenticated principal and auth type, and a changed max inactive interval.
 */
class LoginFailoverIT extends TomcatClusterIT {

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void loggedInUser_staysLoggedInAfterFailover_andThePreLoginIdIsGone(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=cart&value=book");
    String beforeLogin = cluster.sessionCookie();

    assertThat(cluster.get(n1, "/login?user=alice&pass=secret")).startsWith("logged-in ");
    String afterLogin = cluster.sessionCookie();
    assertThat(afterLogin).isNotEqualTo(beforeLogin);
    assertThat(cluster.get(n1, "/whoami")).isEqualTo("alice");
    assertThat(cluster.get(n1, "/maxinactive?seconds=4321")).isEqualTo("4321");

    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());

    assertThat(cluster.get(n2, "/whoami")).isEqualTo("alice");
    assertThat(cluster.get(n2, "/get?name=cart")).isEqualTo("book");
    assertThat(cluster.get(n2, "/maxinactive")).isEqualTo("4321");
    cluster.cookies.getCookieStore().removeAll();
    HttpResponse<String> stale = cluster.client.send(HttpRequest.newBuilder(URI.create(n2.url("/get?name=cart")))
        .header("Cookie", "JSESSIONID=" + beforeLogin).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stale.body()).isEqualTo("no-session");
  }
}
