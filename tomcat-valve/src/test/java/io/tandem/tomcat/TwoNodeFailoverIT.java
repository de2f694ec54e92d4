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
 * Two embedded Tomcats configured through a real {@code context.xml}, real Grizzly and Hazelcast on loopback. One
 * client (one cookie jar, like a browser behind a load balancer) talks to either node. Failover is proved by
 * crashing the owner ({@link TomcatCluster#crash}): a graceful stop hands every live session over whole, and would
 * hide a write that was never replicated. Only {@code ownerStopsGracefully_...} stops it, to test that handoff.
 */
class TwoNodeFailoverIT extends TomcatClusterIT {

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void ownerCrashes_theOtherNodeServesEveryAcknowledgedAttribute_andTheCookieFollows(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);

    assertThat(cluster.get(n1, "/set?name=user&value=alice")).startsWith("ok ");
    assertThat(cluster.get(n1, "/set?name=step&value=2")).startsWith("ok ");
    assertThat(cluster.get(n1, "/append?value=book")).isEqualTo("ok 1");
    assertThat(cluster.get(n1, "/append?value=pen")).isEqualTo("ok 2");
    assertThat(cluster.sessionCookie()).endsWith(".n1");

    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());

    assertThat(cluster.get(n2, "/list")).isEqualTo("{list=[book, pen], step=2, user=alice}");
    assertThat(cluster.sessionCookie()).endsWith(".n2");
    assertThat(cluster.get(n2, "/get?name=user")).isEqualTo("alice");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void ownerStopsGracefully_handsTheSessionOverWhole_andTheOtherNodeServesIt(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    assertThat(cluster.get(n1, "/set?name=user&value=alice")).startsWith("ok ");
    assertThat(cluster.get(n1, "/append?value=book")).isEqualTo("ok 1");
    io.tandem.core.replicator.ReplicationEngine leaving = n1.manager().engine();

    cluster.stop(n1);

    // The handoff, not the backup, carried it: the leaving node's stop waited for the buddy to take it.
    assertThat(leaving.stats().sessionsHandedOff()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());
    assertThat(cluster.get(n2, "/list")).isEqualTo("{list=[book], user=alice}");
    assertThat(cluster.sessionCookie()).endsWith(".n2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void requestOnTheOtherNode_isServedFromItsBackup_andTheFormerOwnerLetsGo(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=bob");

    assertThat(cluster.get(n2, "/get?name=user")).isEqualTo("bob");
    assertThat(cluster.sessionCookie()).endsWith(".n2");
    cluster.get(n2, "/set?name=user&value=bob-2");

    await().atMost(Duration.ofSeconds(10)).until(() -> n1.manager().findSessions().length == 0);
    assertThat(cluster.get(n2, "/get?name=user")).isEqualTo("bob-2");
    assertThat(n2.manager().getSessionsWithoutBackup()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void invalidatedSession_neverComesBackAfterFailover(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=carol");
    String cookie = cluster.sessionCookie();
    cluster.get(n1, "/invalidate");

    cluster.crash(n1);
    // Until n1 has left the view, a member that may hold the session does not answer: the request would be retried.
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());
    cluster.cookies.getCookieStore().removeAll();
    HttpResponse<String> response = cluster.client.send(HttpRequest.newBuilder(URI.create(n2.url("/get?name=user")))
        .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(response.body()).isEqualTo("no-session");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void expiredSession_isExpiredOnTheOwnerOnly_andNeverComesBack(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=gina");
    cluster.get(n1, "/maxinactive?seconds=1");
    String cookie = cluster.sessionCookie();
    String base = TandemManager.stripRoute(cookie);
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.manager().engine().backupOf(base).isPresent());

    // The buddy never expires a backup whose owner is alive, however idle; the owner expires it and tells the buddy.
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
      n2.manager().engine().runMaintenance();
      n1.manager().processExpires();
      return n1.manager().findSessions().length == 0;
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.manager().engine().backupOf(base).isEmpty());

    cluster.crash(n1);
    // Until n1 has left the view, a member that may hold the session does not answer: the request would be retried.
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());
    cluster.cookies.getCookieStore().removeAll();
    HttpResponse<String> response = cluster.client.send(HttpRequest.newBuilder(URI.create(n2.url("/get?name=user")))
        .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("no-session");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void takenOverSession_isActivatedNotCreated(String scope) throws Exception {
    start(2, scope, "allowedClasses=\"io.tandem.tomcat.ActivationProbe\"");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/probe");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    assertThat(cluster.get(n1, "/events")).isEqualTo("[created " + base + ".n1]");

    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());
    cluster.get(n2, "/get?name=probe");

    assertThat(cluster.get(n2, "/events")).isEqualTo("[activated " + base + ".n2]");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void sessionIsFoundWhateverRouteSuffixTheCookieCarries(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=judy");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    cluster.cookies.getCookieStore().removeAll();

    for (String cookie : new String[] {base, base + ".n1", base + ".elsewhere"}) {
      HttpResponse<String> response = cluster.client.send(HttpRequest.newBuilder(URI.create(n1.url("/get?name=user")))
          .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.body()).as(cookie).isEqualTo("judy");
    }
    HttpResponse<String> stripped = cluster.client.send(HttpRequest.newBuilder(URI.create(n2.url("/get?name=user")))
        .header("Cookie", "JSESSIONID=" + base).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(stripped.body()).isEqualTo("judy");
    assertThat(stripped.headers().allValues("Set-Cookie")).anySatisfy(c -> assertThat(c).contains(base + ".n2"));
  }
}
