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

/**
 * Several embedded Tomcat nodes of one Tandem cluster, and one HTTP client with one cookie jar (a browser behind a
 * load balancer that may send it to any node).
 */
final class TomcatCluster implements AutoCloseable {
  final List<TomcatNode> nodes = new ArrayList<>();
  private final List<String> nodeAttributes = new ArrayList<>();
  private final Path work;
  private final String managerClass;
  final CookieManager cookies = new CookieManager();
  final HttpClient client = HttpClient.newBuilder().cookieHandler(cookies).build();

  /** A cluster of {@code size} configured nodes of which the first {@code running} are started now. */
  TomcatCluster(Path work, int size, int running, String scope, String extraAttributes) throws Exception {
    this(work, size, running, scope, extraAttributes, TandemManager.class.getName());
  }

  /** @param managerClass every node's {@code <Manager className>} */
  TomcatCluster(Path work, int size, int running, String scope, String extraAttributes, String managerClass)
      throws Exception {
    this.work = work;
    this.managerClass = managerClass;
    String cluster = "tomcat-it-" + System.nanoTime();
    List<Integer> membershipPorts = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      membershipPorts.add(TomcatNode.freePort());
    }
    String members = String.join(",", membershipPorts.stream().map(p -> "127.0.0.1:" + p).toList());
    for (int i = 0; i < size; i++) {
      String attributes = "clusterName=\"" + cluster + "\" sharedSecret=\"integration-test-secret-123\" scope=\"" + scope
          + "\" transportPort=\"" + TomcatNode.freePort() + "\" membershipPort=\"" + membershipPorts.get(i)
          + "\" members=\"" + members + "\" " + extraAttributes;
      nodeAttributes.add(attributes);
    }
    for (int i = 0; i < running; i++) {
      start(i);
    }
    if (running > 1) {
      await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(n -> n.manager().engine().buddy().isPresent()));
    }
  }

  /** A cluster of nodes configured by {@code attributes} (one entry per node, all of its attributes), all started. */
  TomcatCluster(Path work, List<String> attributes) throws Exception {
    this.work = work;
    this.managerClass = TandemManager.class.getName();
    nodeAttributes.addAll(attributes);
    for (int i = 0; i < attributes.size(); i++) {
      start(i);
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(n -> n.manager().engine().buddy().isPresent()));
  }

  /** Starts configured node {@code index} (named n{index+1}). */
  TomcatNode start(int index) throws Exception {
    TomcatNode node = new TomcatNode(work, "n" + (index + 1), nodeAttributes.get(index), managerClass);
    nodes.add(node);
    return node;
  }

  TomcatNode node(int index) {
    return nodes.get(index);
  }

  String get(TomcatNode node, String pathAndQuery) throws Exception {
    HttpResponse<String> response =
        client.send(HttpRequest.newBuilder(URI.create(node.url(pathAndQuery))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(pathAndQuery).isEqualTo(200);
    return response.body();
  }

  /** A request whatever its status, with the cluster's cookies. */
  HttpResponse<String> send(TomcatNode node, String pathAndQuery) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(node.url(pathAndQuery))).build(), HttpResponse.BodyHandlers.ofString());
  }

  String sessionCookie() {
    return cookies.getCookieStore().getCookies().stream().filter(c -> c.getName().equals("JSESSIONID"))
        .map(HttpCookie::getValue).findFirst().orElse(null);
  }

  /**
   * Stops {@code node} gracefully: Tomcat stops its manager, which first hands every live session over to its buddy
   * in full. A failover test must {@link #crash} instead, or it passes even when nothing was ever replicated.
   */
  void stop(TomcatNode node) throws org.apache.catalina.LifecycleException {
    node.close();
    nodes.remove(node);
  }

  /**
   * Kills {@code node} as far as the others can tell (see {@link TomcatNode#crash}): its sessions survive only through
   * what it replicated before. The others notice by Hazelcast's failure detection, within a few seconds.
   */
  void crash(TomcatNode node) throws org.apache.catalina.LifecycleException {
    io.tandem.core.replicator.ReplicationEngine engine = node.manager().engine();
    node.crash();
    nodes.remove(node);
    // A crash that still handed sessions over would hide a replication that lost them.
    assertThat(engine.stats().sessionsHandedOff()).as("sessions %s handed over while crashing", node.route).isZero();
  }

  @Override
  public void close() throws org.apache.catalina.LifecycleException {
    for (TomcatNode node : nodes) {
      node.close();
    }
  }
}
