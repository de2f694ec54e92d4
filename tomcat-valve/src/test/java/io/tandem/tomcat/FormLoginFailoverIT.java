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
 * A FORM login that starts on one node and finishes on another: the request saved in the session's notes while
 * the login form is shown survives the failover, so the user lands on the page they asked for, logged in.
 */
class FormLoginFailoverIT extends TomcatClusterIT {

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void loginFormShownByOneNode_isAcceptedByTheOtherAfterFailover(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    assertThat(cluster.get(n1, "/secure/page")).isEqualTo("login-form");

    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());

    HttpResponse<String> login = cluster.client.send(HttpRequest.newBuilder(URI.create(n2.url("/j_security_check")))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("j_username=alice&j_password=secret")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(login.statusCode()).isIn(302, 303);
    assertThat(login.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).endsWith("/secure/page"));

    assertThat(cluster.get(n2, "/secure/page")).isEqualTo("secret for alice");
  }
}
