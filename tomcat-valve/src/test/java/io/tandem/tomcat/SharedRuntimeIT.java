package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two applications on each embedded Tomcat, each configured by its own real {@code META-INF/context.xml} with the same
 * Tandem {@code <Manager>} (the same cluster, the same ports): one node runtime per node serves both, and their
 * sessions never mix. Both contexts set {@code sessionCookiePath="/"}, so Tomcat gives a user's session the same id in
 * both applications: the sharpest test that one application's values never reach the other's.
 */
class SharedRuntimeIT {
  private static final String SECRET = "integration-test-secret-123";

  @TempDir Path work;
  private final List<Node> nodes = new ArrayList<>();
  private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

  @AfterEach
  void stop() throws Exception {
    for (Node node : nodes) {
      node.close();
    }
  }

  @Test
  void twoApplications_sameSessionId_replicateApart_andBothSurviveTheOwnersCrash() throws Exception {
    startCluster(2, "/a", "/b");
    Node n1 = nodes.get(0);
    Node n2 = nodes.get(1);

    String inA = get(n1, "/a/set?name=k&value=written-in-a");
    String inB = get(n1, "/b/set?name=k&value=written-in-b");
    assertThat(get(n1, "/a/set?name=onlyA&value=1")).startsWith("ok ");

    assertThat(inA).startsWith("ok ").isEqualTo(inB); // one session id, two sessions
    assertThat(n1.manager("/a")).isNotSameAs(n1.manager("/b"));
    assertThat(n1.manager("/a").nodeRuntime()).as("one runtime for both").isSameAs(n1.manager("/b").nodeRuntime());
    assertThat(n1.manager("/a").engine()).isNotSameAs(n1.manager("/b").engine());
    assertThat(get(n1, "/b/get?name=onlyA")).isEqualTo("null");

    n1.crash();
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager("/a").engine().buddy().isEmpty()
        && n2.manager("/b").engine().buddy().isEmpty());

    assertThat(get(n2, "/a/list")).isEqualTo("{k=written-in-a, onlyA=1}");
    assertThat(get(n2, "/b/list")).isEqualTo("{k=written-in-b}");
  }

  @Test
  void contextNamingTheClusterWithOtherSettings_isRefused_namingEachSetting_withTheSecretMasked() throws Exception {
    int transportPort = TomcatNode.freePort();
    int otherPort = TomcatNode.freePort();
    int membershipPort = TomcatNode.freePort();
    String cluster = "shared-it-" + System.nanoTime();
    Map<String, String> contexts = new LinkedHashMap<>();
    contexts.put("/a", attributes(cluster, transportPort, membershipPort, "127.0.0.1:" + membershipPort, SECRET));
    contexts.put("/b", attributes(cluster, otherPort, membershipPort, "127.0.0.1:" + membershipPort, "another-secret-of-16-bytes"));
    List<String> errors = capturingErrors(() -> nodes.add(new Node(work, "n1", contexts)));
    Node n1 = nodes.get(0);

    assertThat(n1.context("/b").getState()).isNotEqualTo(LifecycleState.STARTED);
    assertThat(errors).anySatisfy(message -> assertThat(message)
        .contains("Context [/b] names cluster [" + cluster + "] as node [n1], which this node already runs for context [/a]")
        .contains("transportPort: '" + otherPort + "' here, '" + transportPort + "' in the running runtime")
        .contains("sharedSecret: differs from the running runtime's (values masked)")
        .doesNotContain("another-secret-of-16-bytes").doesNotContain(SECRET));
    assertThat(get(n1, "/a/set?name=k&value=v")).as("the first context runs on").startsWith("ok ");
  }

  @Test
  void undeployOfOneApplication_leavesTheRuntimeToTheOther_andTheLastOneOutClosesIt() throws Exception {
    startCluster(2, "/a", "/b");
    Node n1 = nodes.get(0);
    Node n2 = nodes.get(1);
    String runtime = n2.runtimeKey();

    n2.undeploy("/b");

    assertThat(NodeRuntimes.JVM.users(runtime)).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.manager("/b").engine().buddy().isEmpty());
    assertThat(get(n1, "/a/set?name=k&value=still-replicated")).startsWith("ok ");
    String id = TandemManager.stripRoute(get(n1, "/a/set?name=k2&value=v2").substring(3));
    assertThat(n2.manager("/a").engine().backupOf(id)).isPresent();
    assertThat(get(n1, "/b/set?name=k&value=alone")).as("the application the buddy undeployed runs alone").startsWith("ok ");
    assertThat(n1.manager("/b").getSessionsWithoutBackup()).isEqualTo(1);

    n2.undeploy("/a");

    assertThat(NodeRuntimes.JVM.users(runtime)).isZero();
    assertThat(NodeRuntimes.JVM.running()).doesNotContain(runtime);
  }

  @Test
  void reloadOfAnApplication_keepsItsSessions_andTheOtherApplicationsRuntime() throws Exception {
    startCluster(2, "/a", "/b");
    Node n1 = nodes.get(0);
    assertThat(get(n1, "/a/set?name=k&value=a-before")).startsWith("ok ");
    assertThat(get(n1, "/b/set?name=k&value=b-before")).startsWith("ok ");
    assertThat(get(n1, "/b/append?value=book")).isEqualTo("ok 1");
    io.tandem.core.replicator.ReplicationEngine aEngine = n1.manager("/a").engine();

    n1.context("/b").reload();

    assertThat(n1.context("/b").getState()).isEqualTo(LifecycleState.STARTED);
    assertThat(get(n1, "/b/list")).isEqualTo("{k=b-before, list=[book]}");
    assertThat(get(n1, "/b/set?name=k&value=b-after")).startsWith("ok ");
    assertThat(n1.manager("/a").engine()).as("the other application kept its engine").isSameAs(aEngine);
    assertThat(get(n1, "/a/list")).isEqualTo("{k=a-before}");
  }

  // ---- nodes with several applications --------------------------------------------------------------------------

  private void startCluster(int size, String... paths) throws Exception {
    String cluster = "shared-it-" + System.nanoTime();
    List<Integer> membershipPorts = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      membershipPorts.add(TomcatNode.freePort());
    }
    String members = String.join(",", membershipPorts.stream().map(p -> "127.0.0.1:" + p).toList());
    for (int i = 0; i < size; i++) {
      String attributes = attributes(cluster, TomcatNode.freePort(), membershipPorts.get(i), members, SECRET);
      Map<String, String> contexts = new LinkedHashMap<>();
      for (String path : paths) {
        contexts.put(path, attributes); // the same <Manager> in every application, as conf/context.xml gives it
      }
      nodes.add(new Node(work, "n" + (i + 1), contexts));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> nodes.stream().allMatch(node ->
        List.of(paths).stream().allMatch(path -> node.manager(path).engine().buddy().isPresent())));
  }

  private static String attributes(String cluster, int transportPort, int membershipPort, String members, String secret) {
    return "clusterName=\"" + cluster + "\" sharedSecret=\"" + secret + "\" transportPort=\"" + transportPort
        + "\" membershipPort=\"" + membershipPort + "\" members=\"" + members + "\"";
  }

  private String get(Node node, String pathAndQuery) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + node.httpPort + pathAndQuery)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  /** What TandemManager logged at ERROR while {@code action} ran. */
  private static List<String> capturingErrors(ThrowingRunnable action) throws Exception {
    List<String> errors = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        errors.add(String.valueOf(record.getMessage()));
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger logger = Logger.getLogger(TandemManager.class.getName());
    logger.addHandler(capture);
    try {
      action.run();
    } finally {
      logger.removeHandler(capture);
    }
    return errors;
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** An embedded Tomcat with one application per entry, each with its own {@code META-INF/context.xml}. */
  private static final class Node implements AutoCloseable {
    final Tomcat tomcat = new Tomcat();
    final int httpPort = TomcatNode.freePort();
    final String route;
    private final Map<String, Context> contexts = new LinkedHashMap<>();
    private boolean closed;

    Node(Path work, String route, Map<String, String> managerAttributes) throws Exception {
      this.route = route;
      Path base = Files.createDirectories(work.resolve(route));
      tomcat.setBaseDir(base.toString());
      tomcat.setPort(httpPort);
      tomcat.getConnector();
      tomcat.getEngine().setJvmRoute(route);
      tomcat.setAddDefaultWebXmlToWebapp(false);
      for (Map.Entry<String, String> application : managerAttributes.entrySet()) {
        Path docBase = Files.createDirectories(base.resolve("webapp" + application.getKey().replace('/', '-')));
        Files.createDirectories(docBase.resolve("META-INF"));
        Files.writeString(docBase.resolve("META-INF/context.xml"), "<Context sessionCookiePath=\"/\">\n"
            + "  <Manager className=\"" + TandemManager.class.getName() + "\" " + application.getValue() + "/>\n</Context>\n",
            StandardCharsets.UTF_8);
        Context context = tomcat.addWebapp(application.getKey(), docBase.toString());
        // Added at every configuration, since a reload removes what was not declared in a web.xml.
        context.addLifecycleListener(event -> {
          if (org.apache.catalina.Lifecycle.CONFIGURE_START_EVENT.equals(event.getType())) {
            Tomcat.addServlet(context, "session", new TomcatNode.SessionServlet());
            context.addServletMappingDecoded("/*", "session");
          }
        });
        contexts.put(application.getKey(), context);
      }
      tomcat.start();
    }

    Context context(String path) {
      return contexts.get(path);
    }

    TandemManager manager(String path) {
      return (TandemManager) contexts.get(path).getManager();
    }

    String runtimeKey() {
      return NodeRuntimes.JVM.running().stream().filter(key -> key.endsWith("/" + route)).findFirst().orElseThrow();
    }

    /** Removes the application from the host, as the manager application's undeploy does. */
    void undeploy(String path) {
      tomcat.getHost().removeChild(contexts.remove(path));
    }

    /** Dies as {@code kill -9} would for the others (see {@link TomcatNode#crash}), then stops answering. */
    void crash() throws Exception {
      manager(contexts.keySet().iterator().next()).haltWithoutHandoff();
      close();
    }

    @Override
    public void close() throws org.apache.catalina.LifecycleException {
      if (closed) {
        return;
      }
      closed = true;
      if (tomcat.getServer().getState().isAvailable()) {
        tomcat.stop();
      }
      tomcat.destroy();
    }
  }
}
