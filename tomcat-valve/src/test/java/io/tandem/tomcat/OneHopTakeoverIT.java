package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.session.EncodedValue;
import io.tandem.transport.grizzly.TransportStats;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three Tomcat nodes over real sockets (n1 → n2 → n3 → n1). A cookie naming a session that exists nowhere costs,
 * once the node remembers it, no message to any node; a session taken over keeps its attributes encoded until the
 * application reads each, and replicates the ones it never read from their bytes.
 */
class OneHopTakeoverIT extends TomcatClusterIT {

  private HttpResponse<String> withCookie(TomcatNode node, String pathAndQuery, String cookie) throws Exception {
    return cluster.client.send(HttpRequest.newBuilder(URI.create(node.url(pathAndQuery)))
        .header("Cookie", "JSESSIONID=" + cookie).build(), HttpResponse.BodyHandlers.ofString());
  }

  private List<Long> traffic() {
    return List.of(0, 1, 2).stream().map(i -> cluster.node(i).manager().transportStats())
        .flatMap(s -> java.util.stream.Stream.of(s.requestsSent(), s.requestsServed())).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"MODIFIED_ATTRIBUTE"})
  void requestsWithARandomSessionId_onceItIsRemembered_causeNoMessageToAnyNode(String scope) throws Exception {
    start(3, scope, "settleTimeout=\"1s\"");
    TomcatNode n3 = cluster.node(2);
    String forged = "4F9C2A0D17E3B5C6A8D9E0F1A2B3C4D5.n1";
    // Asked of n1 and n2 until the views of the start have settled; from then on remembered.
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      assertThat(withCookie(n3, "/get?name=user", forged).body()).isEqualTo("no-session");
      return n3.manager().engine().unknownSessionsRemembered() > 0;
    });
    List<Long> before = traffic();

    for (int i = 0; i < 50; i++) {
      HttpResponse<String> response = withCookie(n3, "/get?name=user", forged);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("no-session");
    }

    assertThat(traffic()).as("requests sent and served by n1, n2, n3").isEqualTo(before);
    assertThat(n3.manager().findSessions()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void aSessionTakenOver_decodesOnlyWhatTheApplicationReads_andReplicatesTheRestFromItsBytes(String scope) throws Exception {
    start(3, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n3 = cluster.node(2);
    cluster.get(n1, "/set?name=user&value=ann");
    cluster.get(n1, "/set?name=cart&value=book");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    byte[] cartBytes = cluster.node(1).manager().engine().backupOf(base).orElseThrow().attributes().get("cart").bytes();

    assertThat(cluster.get(n3, "/get?name=user")).isEqualTo("ann"); // migrated in from n1 (the route) in one hop
    cluster.get(n3, "/set?name=user&value=bob");

    TandemSession taken = (TandemSession) n3.manager().findSession(base + ".n3");
    assertThat(taken.attribute("cart")).as("never read on n3").isInstanceOf(EncodedValue.class);
    assertThat(taken.attribute("user")).isEqualTo("bob");
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      var backup = n1.manager().engine().backupOf(base).orElseThrow(); // n3's buddy is n1
      assertThat(backup.attributes().get("cart").bytes()).isEqualTo(cartBytes);
      assertThat(n1.manager().engine().backupOf(base).orElseThrow().version()).isGreaterThanOrEqualTo(2);
    });
    assertThat(cluster.get(n3, "/list")).isEqualTo("{cart=book, user=bob}");
    assertThat(taken.attribute("cart")).isEqualTo("book");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void anAttributeDecodedOnFirstRead_andChangedInPlace_reachesTheBuddy(String scope) throws Exception {
    start(3, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n3 = cluster.node(2);
    cluster.get(n1, "/append?value=hat");
    String base = TandemManager.stripRoute(cluster.sessionCookie());

    assertThat(cluster.get(n3, "/get?name=user")).isEqualTo("null"); // taken over; "list" not read yet
    assertThat(cluster.get(n3, "/append?value=scarf")).isEqualTo("ok 2"); // read, then changed without setAttribute

    var config = n3.manager().engine().config();
    var codec = io.tandem.core.codec.AttributeCodecs.create(config.codec(),
        io.tandem.core.codec.ClassFilter.of(config.allowedClasses()), config.codecLimits());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      var backup = n1.manager().engine().backupOf(base).orElseThrow(); // n3's buddy is n1
      assertThat(codec.decode(backup.attributes().get("list"), getClass().getClassLoader()))
          .isEqualTo(List.of("hat", "scarf"));
    });
  }
}
