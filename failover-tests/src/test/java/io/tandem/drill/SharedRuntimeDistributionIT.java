package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 28's report, on the real Tomcat 10.1 and 11 distributions: the {@code <Manager>} in {@code conf/context.xml} and
 * two distributable applications on each of two nodes (the drill application deployed twice, as {@code /app} and
 * {@code /app2}). Before one runtime per node, the second application failed to start ({@code Address already in use})
 * and answered 404. Now both start on one runtime, both replicate, and when the node that owns a user's sessions is
 * killed (SIGKILL), both sessions survive on the other node with their values, apart: {@code sessionCookiePath="/"}
 * makes Tomcat give the user's two sessions one id, and what was written in one application never shows in the other.
 */
class SharedRuntimeDistributionIT {
  private final List<TomcatProcess> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(TomcatProcess::close);
  }

  @ParameterizedTest(name = "Tomcat {0}")
  @ValueSource(strings = {"10", "11"})
  void managerInConfContext_twoApplicationsPerNode_bothReplicate_andBothSurviveTheOwnersKill(String major) throws Exception {
    Path home = catalinaHome(major);
    Path drillHome = Path.of(System.getProperty("tandem.drill.home", "target"));
    Path dropin = drillHome.resolve("dropin/tomcat-valve-dropin.jar");
    Path work = Files.createDirectories(drillHome.resolve("dist-it/shared-" + major + "-" + System.nanoTime()));
    String cluster = "shared-" + major + "-" + System.nanoTime();
    int m1 = DrillCluster.freePort();
    int m2 = DrillCluster.freePort();
    for (int i = 0; i < 2; i++) {
      String attributes = "clusterName=\"" + cluster + "\" sharedSecret=\"distribution-test-secret\" transportPort=\""
          + DrillCluster.freePort() + "\" membershipPort=\"" + (i == 0 ? m1 : m2) + "\" members=\"127.0.0.1:" + m1 + ",127.0.0.1:" + m2 + "\"";
      nodes.add(TomcatProcess.withApplications(home, work, dropin, "n" + (i + 1), DrillCluster.freePort(), attributes,
          List.of("app", "app2"), "sessionCookiePath=\"/\""));
    }
    for (TomcatProcess node : nodes) {
      node.awaitReady(Duration.ofSeconds(120)); // both applications answer: the second one did not before
    }
    TomcatProcess n1 = nodes.get(0);
    TomcatProcess n2 = nodes.get(1);
    assertThat(n1.log()).contains("sharing the node's runtime of cluster [" + cluster + "]").doesNotContain("BindException");
    // Each application's engine logs its buddy: both must have one before the first write, or nobody acknowledges it.
    await().atMost(Duration.ofSeconds(60)).until(() -> count(n1.log(), "buddy is now n2") >= 2);

    CookieManager cookies = new CookieManager();
    HttpClient client = HttpClient.newBuilder().cookieHandler(cookies).build();
    TreeMap<String, String> inApp = new TreeMap<>();
    TreeMap<String, String> inApp2 = new TreeMap<>();
    for (int i = 0; i < 5; i++) {
      assertThat(get(client, n1, "/app/session.jsp?action=set&name=a" + i + "&value=app-" + i)).startsWith("ok ");
      inApp.put("a" + i, "app-" + i);
      assertThat(get(client, n1, "/app2/session.jsp?action=set&name=b" + i + "&value=app2-" + i)).startsWith("ok ");
      inApp2.put("b" + i, "app2-" + i);
    }
    assertThat(get(client, n1, "/app2/session.jsp?action=set&name=shared&value=from-app2")).startsWith("ok ");
    inApp2.put("shared", "from-app2");
    assertThat(get(client, n1, "/app/session.jsp?action=set&name=shared&value=from-app")).startsWith("ok ");
    inApp.put("shared", "from-app");
    List<HttpCookie> sessionCookies = cookies.getCookieStore().getCookies().stream()
        .filter(c -> c.getName().equals("JSESSIONID")).toList();
    assertThat(sessionCookies).as("one session id for both applications").hasSize(1);
    assertThat(sessionCookies.get(0).getValue()).endsWith(".n1");
    assertThat(attributes(client, n1, "/app")).isEqualTo(inApp);
    assertThat(attributes(client, n1, "/app2")).isEqualTo(inApp2);

    n1.kill();

    assertServedWithRetries(client, n2, "/app", inApp);
    assertServedWithRetries(client, n2, "/app2", inApp2);
  }

  private static Path catalinaHome(String major) throws Exception {
    Path dist = Path.of(System.getProperty("tandem.drill.home", "target"), "dist");
    try (Stream<Path> homes = Files.list(dist)) {
      return homes.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-" + major + ".")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no Tomcat " + major + " distribution unpacked in " + dist));
    }
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
      n++;
    }
    return n;
  }

  /** The application's session as {@code node} serves it, retrying a 503 for up to 15 s as a user would. */
  private static void assertServedWithRetries(HttpClient client, TomcatProcess node, String application,
      Map<String, String> expected) throws Exception {
    List<String> answers = new ArrayList<>();
    HttpResponse<String> response = send(client, node, application + "/session.jsp");
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (response.statusCode() == 503 && System.nanoTime() < deadline) {
      answers.add("503");
      Thread.sleep(250);
      response = send(client, node, application + "/session.jsp");
    }
    answers.add(response.statusCode() + " " + response.body().trim());
    assertThat(AppResponse.parse(response.body().trim()).attributes())
        .as("%s on the survivor answered %s", application, answers).isEqualTo(expected);
    assertThat(response.statusCode()).isEqualTo(200);
  }

  private static Map<String, String> attributes(HttpClient client, TomcatProcess node, String application) throws Exception {
    return AppResponse.parse(get(client, node, application + "/session.jsp")).attributes();
  }

  private static String get(HttpClient client, TomcatProcess node, String path) throws Exception {
    return send(client, node, path).body().trim();
  }

  private static HttpResponse<String> send(HttpClient client, TomcatProcess node, String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(), HttpResponse.BodyHandlers.ofString());
  }
}
