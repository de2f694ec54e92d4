package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A request for a session the node owns looks it up once, in Tomcat's map, and never by id through the manager or
 * the engine: admission, Tomcat's own lookup, the flush, a login's id change all go through the session and the
 * engine's handle it keeps. A session owned elsewhere still takes the by-id path and is taken over. Real embedded
 * Tomcats whose {@code context.xml} names a counting subclass of the manager.
 */
class OneLookupPerRequestIT extends TomcatClusterIT {

  private TomcatCluster startCounting() throws Exception {
    cluster = new TomcatCluster(work, 2, 2, "MODIFIED_ATTRIBUTE", "", LookupCountingManager.class.getName());
    return cluster;
  }

  private static LookupCountingManager counting(TomcatNode node) {
    return (LookupCountingManager) node.context.getManager();
  }

  private LookupCountingManager.Counts request(TomcatNode node, String pathAndQuery, String expected) throws Exception {
    LookupCountingManager.Counts before = counting(node).counts();
    assertThat(cluster.get(node, pathAndQuery)).startsWith(expected);
    return counting(node).counts().since(before);
  }

  @Test
  void requestsForASessionOwnedHere_lookItUpOnce_andNeverById() throws Exception {
    startCounting();
    TomcatNode n1 = cluster.node(0);
    cluster.get(n1, "/set?name=user&value=ann");

    for (String[] step : new String[][] {
        {"/set?name=cart&value=1", "ok"}, {"/get?name=user", "ann"}, {"/list", "{cart=1, user=ann}"},
        {"/append?value=x", "ok 1"}, {"/maxinactive", "1800"}}) {
      assertThat(request(n1, step[0], step[1])).as(step[0]).isEqualTo(new LookupCountingManager.Counts(1, 0));
    }
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node(1).manager().engine().backupOf(base)
        .map(b -> b.attributes().keySet().containsAll(java.util.List.of("user", "cart", "list"))).orElse(false));
  }

  @Test
  void loginOnASessionOwnedHere_changesItsIdThroughTheHandle_andLaterRequestsStillLookItUpOnce() throws Exception {
    startCounting();
    TomcatNode n1 = cluster.node(0);
    cluster.get(n1, "/set?name=user&value=bob");
    String before = cluster.sessionCookie();

    LookupCountingManager.Counts login = request(n1, "/login?user=alice&pass=secret", "logged-in");

    assertThat(login.byIdCalls()).isZero();
    assertThat(cluster.sessionCookie()).as("a new id at login").isNotEqualTo(before);
    assertThat(request(n1, "/whoami", "alice")).isEqualTo(new LookupCountingManager.Counts(1, 0));
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node(1).manager().engine().backupOf(base)
        .map(b -> b.metadata().principal() != null).orElse(false));
  }

  @Test
  void sessionOwnedElsewhere_takesTheByIdPath_andOnceTakenOverIsLookedUpOnce() throws Exception {
    startCounting();
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=cy");

    LookupCountingManager.Counts takeover = request(n2, "/get?name=user", "cy"); // the balancer moved the client

    assertThat(takeover.byIdCalls()).as("the counting manager is the one Tomcat runs").isPositive();
    assertThat(cluster.sessionCookie()).as("re-routed to n2").endsWith(".n2");
    assertThat(request(n2, "/get?name=user", "cy")).isEqualTo(new LookupCountingManager.Counts(1, 0));
  }
}
