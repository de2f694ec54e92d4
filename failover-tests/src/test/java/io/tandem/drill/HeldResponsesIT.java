package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A SYNC response waiting for its buddy holds no Tomcat thread, on real Tomcat 10.1 processes: a node whose connector
 * has a single request thread, whose buddy is frozen (SIGSTOP) while a write waits for its acknowledgement, still
 * serves other requests; the write is answered 200, with the value on both nodes, once the buddy runs again.
 * Before, the write's thread slept until the acknowledgement, and with it every request behind it.
 */
class HeldResponsesIT {
  private final List<TomcatProcess> nodes = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (TomcatProcess node : nodes) {
      try {
        node.resume(); // never leave a frozen process behind
      } catch (RuntimeException | java.io.IOException ignored) {
        // it is gone already
      }
      node.close();
    }
  }

  @Test
  void writeWaitingForAFrozenBuddy_holdsNoThread_theOnlyRequestThreadServesOthers_andTheWriteIs200WhenItRuns()
      throws Exception {
    Path drillHome = Path.of(System.getProperty("tandem.drill.home", "target"));
    Path home;
    try (Stream<Path> homes = Files.list(drillHome.resolve("dist"))) {
      home = homes.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-10.")).findFirst().orElseThrow();
    }
    Path work = Files.createDirectories(drillHome.resolve("held-it/" + System.nanoTime()));
    String cluster = "held-" + System.nanoTime();
    int m1 = DrillCluster.freePort();
    int m2 = DrillCluster.freePort();
    for (int i = 0; i < 2; i++) {
      // settleTimeout well past the freeze below, so the write can only end by the buddy's acknowledgement
      String attributes = "clusterName=\"" + cluster + "\" sharedSecret=\"held-responses-test-secret\" transportPort=\""
          + DrillCluster.freePort() + "\" membershipPort=\"" + (i == 0 ? m1 : m2) + "\" members=\"127.0.0.1:" + m1
          + ",127.0.0.1:" + m2 + "\" settleTimeout=\"30s\"";
      nodes.add(new TomcatProcess(home, work, drillHome.resolve("dropin/tomcat-valve-dropin.jar"), "n" + (i + 1),
          DrillCluster.freePort(), attributes, "maxThreads=\"1\" minSpareThreads=\"1\""));
    }
    for (TomcatProcess node : nodes) {
      node.awaitReady(Duration.ofSeconds(120));
    }
    TomcatProcess n1 = nodes.get(0);
    TomcatProcess n2 = nodes.get(1);
    await().atMost(Duration.ofSeconds(60)).until(() -> n1.log().contains("buddy is now n2"));
    HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    assertThat(body(client, n1, "/app/session.jsp?action=set&name=k&value=v1")).startsWith("ok ");
    long heldBefore = held(n1);

    n2.hang();
    CompletableFuture<HttpResponse<String>> write = client.sendAsync(
        HttpRequest.newBuilder(URI.create(n1.url("/app/session.jsp?action=set&name=k&value=v2"))).build(),
        HttpResponse.BodyHandlers.ofString());
    Thread.sleep(500); // the write reaches n1's valve and waits (a status poll would need the thread it may hold)

    // n1 has one request thread; the write waits for the frozen buddy, and another user is served meanwhile.
    HttpClient other = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpResponse<String> served = other.sendAsync(HttpRequest.newBuilder(URI.create(n1.url("/app/login.html")))
        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).get(3, TimeUnit.SECONDS);
    assertThat(served.statusCode()).isEqualTo(200);
    assertThat(write).as("the write still waits for its acknowledgement").isNotDone();
    assertThat(held(n1)).as("ResponsesHeldForReplication").isEqualTo(heldBefore + 1);

    n2.resume();
    HttpResponse<String> written = write.get(30, TimeUnit.SECONDS);
    assertThat(written.statusCode()).isEqualTo(200);
    assertThat(written.body().trim()).startsWith("ok ");
    assertThat(n1.log()).as("n1 went on with n2 as its buddy, not alone").doesNotContain("buddy is now nobody");
    n1.kill();
    assertThat(AppResponse.parse(body(client, n2, "/app/session.jsp")).attributes()).containsEntry("k", "v2");
  }

  private static long held(TomcatProcess node) throws Exception {
    HttpResponse<String> status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        node.url("/app/status.jsp"))).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    return NodeStatus.parse(node.route, status.body()).held();
  }

  private static String body(HttpClient client, TomcatProcess node, String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(), HttpResponse.BodyHandlers.ofString())
        .body().trim();
  }
}
