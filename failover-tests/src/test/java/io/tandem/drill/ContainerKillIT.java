package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The kill drill on the official Tomcat image, for machines with a Docker engine: two containers with the drop-in
 * jar, each with its jvmRoute, replicating over a Docker network; the owner's container is killed (SIGKILL) and the
 * survivor must serve every acknowledged write. Without a Docker engine it is skipped, saying so.
 */
class ContainerKillIT {
  private static final DockerImageName TOMCAT = DockerImageName.parse("tomcat:10.1-jdk17-temurin");
  private static final String APP = "/usr/local/tomcat/webapps/app/";

  private static void requireDocker() {
    boolean docker = DockerClientFactory.instance().isDockerAvailable();
    // SkipReasonPrinter puts this reason on the console; System.out would only reach the -output.txt report.
    assumeTrue(docker, "No Docker engine on this machine: the Testcontainers kill drill on the official Tomcat image is"
        + " skipped (the same drill runs on real Tomcat processes in QuickDrillsIT)");
  }

  private static GenericContainer<?> node(Network network, String route) {
    String context = "<Context>\n"
        + "  <Parameter name=\"drill.node\" value=\"" + route + "\" override=\"false\"/>\n"
        + "  <Manager className=\"io.tandem.tomcat.TandemManager\" clusterName=\"containers\""
        + " sharedSecret=\"container-drill-secret-0123\" bindAddress=\"" + route + "\" transportPort=\"7800\""
        + " membershipPort=\"5701\" members=\"n1:5701,n2:5701\"/>\n"
        + "</Context>\n";
    return new GenericContainer<>(TOMCAT)
        .withNetwork(network)
        .withNetworkAliases(route)
        .withEnv("CATALINA_OPTS", "-DjvmRoute=" + route + " -Xmx256m")
        // Tomcat 10.1 no longer reads the jvmRoute system property by itself (without a route the manager has no
        // node id and the context does not start): the Engine names it, as in docs/tomcat.md's image.
        .withCommand("sh", "-c", "sed -i 's|<Engine name=\"Catalina\" defaultHost=\"localhost\">|"
            + "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"${jvmRoute}\">|' conf/server.xml"
            + " && exec catalina.sh run")
        .withCopyFileToContainer(MountableFile.forHostPath(DrillRun.home().resolve("dropin/tomcat-valve-dropin.jar")),
            "/usr/local/tomcat/lib/tandem-dropin.jar")
        .withCopyToContainer(Transferable.of(context), APP + "META-INF/context.xml")
        .withCopyFileToContainer(MountableFile.forClasspathResource("drill-webapp/session.jsp"), APP + "session.jsp")
        .withCopyFileToContainer(MountableFile.forClasspathResource("drill-webapp/status.jsp"), APP + "status.jsp")
        .withExposedPorts(8080)
        .waitingFor(Wait.forHttp("/app/status.jsp").forStatusCode(200).withStartupTimeout(Duration.ofMinutes(3)));
  }

  @Test
  void killingTheOwnersContainer_survivorServesEveryAcknowledgedWrite() throws Exception {
    requireDocker();
    try (Network network = Network.newNetwork();
         GenericContainer<?> n1 = node(network, "n1");
         GenericContainer<?> n2 = node(network, "n2")) {
      List<GenericContainer<?>> both = new ArrayList<>(List.of(n1, n2));
      both.forEach(GenericContainer::start);
      HttpClient http = HttpClient.newHttpClient();
      await().atMost(Duration.ofSeconds(90)).until(() -> get(http, n1, "/app/status.jsp", null).contains("buddy=n2"));

      String cookie = null;
      Map<String, String> acknowledged = new TreeMap<>();
      for (int i = 0; i < 10; i++) {
        HttpResponse<String> response = send(http, n1, "/app/session.jsp?action=set&name=k" + i + "&value=v" + i, cookie);
        cookie = response.headers().firstValue("Set-Cookie").map(c -> c.substring(0, c.indexOf(';'))).orElse(cookie);
        if (AppResponse.parse(response.body().trim()).kind() == AppResponse.Kind.OK) {
          acknowledged.put("k" + i, "v" + i);
        }
      }
      assertThat(acknowledged).hasSize(10);

      n1.getDockerClient().killContainerCmd(n1.getContainerId()).withSignal("KILL").exec();

      AppResponse survivor = AppResponse.parse(get(http, n2, "/app/session.jsp", cookie));
      assertThat(survivor.attributes()).containsAllEntriesOf(acknowledged);
    }
  }

  private static String get(HttpClient http, GenericContainer<?> node, String path, String cookie) throws Exception {
    return send(http, node, path, cookie).body().trim();
  }

  private static HttpResponse<String> send(HttpClient http, GenericContainer<?> node, String path, String cookie) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + node.getHost() + ":" + node.getMappedPort(8080) + path))
        .timeout(Duration.ofSeconds(10));
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
