package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several tabs of one browser reach a node that does not hold their session, at the same moment (the load balancer
 * moved them together). Every one of them must be served the session: none may get a new, empty one because it
 * raced the request that was taking the session over, and none may take the session away again from the node that
 * now owns it (which dropped the buddy's copy and later the session itself: the parallel-requests drill found it).
 */
class ParallelTakeoverIT extends TomcatClusterIT {
  private static final int TABS = 32;
  private static final int ROUNDS = 20;

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_ATTRIBUTE"})
  void tabsArrivingTogetherOnANodeWithoutTheSession_allSeeIt_andItStaysProtected(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    HttpClient tabs = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    for (int round = 0; round < ROUNDS; round++) {
      TomcatNode from = round % 2 == 0 ? n1 : n2;
      TomcatNode to = round % 2 == 0 ? n2 : n1;
      cluster.cookies.getCookieStore().removeAll();
      cluster.get(from, "/set?name=user&value=tab-user-" + round);
      String cookie = cluster.sessionCookie();
      String base = TandemManager.stripRoute(cookie);
      await().atMost(Duration.ofSeconds(10)).until(() -> to.manager().engine().backupOf(base).isPresent());

      List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
      for (int tab = 0; tab < TABS; tab++) {
        answers.add(tabs.sendAsync(HttpRequest.newBuilder(URI.create(to.url("/get?name=user")))
            .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString()));
      }

      for (CompletableFuture<HttpResponse<String>> answer : answers) {
        assertThat(answer.get().body()).as("round %d, a tab on %s", round, to.route).isEqualTo("tab-user-" + round);
      }
      cluster.cookies.getCookieStore().removeAll();
      HttpResponse<String> write = tabs.send(HttpRequest.newBuilder(URI.create(to.url("/set?name=after&value=" + round)))
          .header("Cookie", "JSESSIONID=" + base + "." + to.route).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(write.statusCode()).as("a write on the new owner after the takeover").isEqualTo(200);
      assertThat(to.manager().engine().owns(base)).isTrue();
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(from.manager().engine().backupOf(base)).as("the former owner holds the backup").isPresent());
      assertThat(to.manager().getSessionsWithoutBackup()).isZero();
    }
  }
}
