package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/tomcat.md's "Docker Compose" example, run as written but without Docker: its YAML's two services become two
 * real Tomcat 10.1 processes (the image's base) with the drop-in jar, each with the service's {@code CATALINA_OPTS},
 * the secret made as the docs say and the documented {@code <Manager>}; a hosts file given to each JVM ({@code
 * -Djdk.net.hosts.file}) resolves the service names as Compose's network does. Where Docker exists, {@code
 * ContainerKillIT} runs the same layout on the official image.
 */
class ComposeExampleIT {
  private static final String SECTION = "## Docker Compose";
  private static final String MANAGER = "<Manager className=\"io.tandem.tomcat.TandemManager\"";

  private final List<TomcatProcess> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(TomcatProcess::close);
  }

  /** One service of the YAML: its name, its {@code CATALINA_OPTS}, and the secret file it mounts (host path, mount point). */
  private record Service(String name, String catalinaOpts, String secretFile, String secretMount) {}

  @Test
  void composeExample_formsOneCluster_andN2ServesTheSessionWrittenOnN1_afterN1IsKilled() throws Exception {
    Path drillHome = DrillRun.home();
    Path dropin = drillHome.resolve("dropin/tomcat-valve-dropin.jar");
    assumeTrue(Files.isRegularFile(dropin) && Files.isDirectory(drillHome.resolve("dist")), "No Tomcat distribution or"
        + " drop-in jar under " + drillHome + " (./mvnw install -pl failover-tests -am puts them there): the Docker Compose"
        + " example is not run");
    String section = section(Files.readString(HttpdBalancerTest.docs(), StandardCharsets.UTF_8));
    List<Service> services = services(fencedBlock(section, "yaml"));
    String manager = fencedBlock(section, "xml").strip();
    assertThat(services).extracting(Service::name).as("the services of docs/tomcat.md's Compose YAML").containsExactly("n1", "n2");
    assertThat(manager).as("docs/tomcat.md's Compose <Manager>").startsWith(MANAGER).endsWith("/>")
        .contains("bindAddress=\"${jvmRoute}\"");

    Path work = Files.createDirectories(drillHome.resolve("dist-it/compose-" + System.nanoTime())).toAbsolutePath();
    // Compose's network resolves a service name to its container's address; here n1 is 127.0.0.1 and n2 127.0.0.2,
    // distinct addresses on one host, so both nodes can keep the same ports as the containers do. localhost stays
    // resolvable, as in a container's /etc/hosts: this file replaces /etc/hosts for the JVM.
    Path hosts = work.resolve("hosts");
    StringBuilder hostsFile = new StringBuilder("127.0.0.1 localhost\n");
    for (int i = 0; i < services.size(); i++) {
      hostsFile.append("127.0.0.").append(i + 1).append(' ').append(services.get(i).name()).append('\n');
    }
    Files.writeString(hosts, hostsFile, StandardCharsets.UTF_8);

    // "openssl rand -base64 32 > tandem-secret": 32 random bytes, base64, with openssl's newline (trimmed by Tandem).
    // The file stays where the YAML mounts it from; its path replaces the mount point in sharedSecretFile.
    Service first = services.get(0);
    assertThat(services).extracting(Service::secretFile, Service::secretMount)
        .as("every service mounts the same secret file").containsOnly(tuple(first.secretFile(), first.secretMount()));
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    Path secret = work.resolve(first.secretFile());
    Files.writeString(secret, Base64.getEncoder().encodeToString(random) + "\n", StandardCharsets.US_ASCII);

    int membershipPort = DrillCluster.freePort();
    int transportPort = DrillCluster.freePort();
    String attributes = managerAttributes(manager, first.secretMount(), secret, membershipPort, transportPort);

    Path catalinaHome = DrillMain.catalinaHome(drillHome);
    for (Service service : services) {
      // TomcatProcess sets its own CATALINA_OPTS (heap and GC for a shared machine): a shell adds the service's and the
      // hosts file to them, then execs catalina.sh, so the PID TomcatProcess kills is still Tomcat's. The Engine's
      // jvmRoute is the service name, written by TomcatProcess as the docs' image writes ${jvmRoute} into server.xml.
      List<String> launcher = List.of("sh", "-c", "export CATALINA_OPTS=\"$CATALINA_OPTS $1\"; shift; exec \"$@\"",
          service.name(), service.catalinaOpts() + " -Djdk.net.hosts.file=" + hosts);
      nodes.add(new TomcatProcess(catalinaHome, work, dropin, service.name(), "127.0.0.1", DrillCluster.freePort(),
          attributes, TomcatProcess.MEMORY_REALM, launcher));
    }
    for (TomcatProcess node : nodes) {
      node.awaitReady(Duration.ofSeconds(120));
    }
    TomcatProcess n1 = nodes.get(0);
    TomcatProcess n2 = nodes.get(1);

    // bindAddress="${jvmRoute}" became the service name, which only the hosts file resolves (not /etc/hosts): each
    // transport listens on its own service's address.
    assertThat(n1.log()).contains("Tandem transport of n1 listening on 127.0.0.1:" + transportPort);
    assertThat(n2.log()).contains("Tandem transport of n2 listening on 127.0.0.2:" + transportPort);
    // One cluster: each node took the other as its buddy (Tandem logs every buddy change).
    await().atMost(Duration.ofSeconds(60)).until(() -> n1.log().contains("buddy is now n2") && n2.log().contains("buddy is now n1"));

    // Through n1's published HTTP port; SYNC answers "ok" only once n2 acknowledged the write.
    HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    Map<String, String> written = new TreeMap<>();
    for (int i = 0; i < 5; i++) {
      assertThat(get(client, n1, "/app/session.jsp?action=set&name=k" + i + "&value=v" + i)).startsWith("ok ");
      written.put("k" + i, "v" + i);
    }

    n1.kill();

    // As a client behind a balancer would: a 503 right after the kill (Retry-After: the session cannot be taken over
    // this instant) is asked again; the first answer from the application must carry every value written.
    AppResponse survivor = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> AppResponse.parse(get(client, n2, "/app/session.jsp")), answer -> "n2".equals(answer.node()));
    assertThat(survivor.attributes()).isEqualTo(written);
  }

  /** The "Docker Compose" section of docs/tomcat.md, up to the next section. */
  private static String section(String docs) {
    int start = docs.indexOf("\n" + SECTION + "\n");
    assertThat(start).as("docs/tomcat.md has no '%s' section", SECTION).isNotNegative();
    int end = docs.indexOf("\n## ", start + SECTION.length() + 2);
    return docs.substring(start, end < 0 ? docs.length() : end);
  }

  /** The section's only fenced block of {@code language}. */
  private static String fencedBlock(String section, String language) {
    Matcher block = Pattern.compile("\n```" + language + "\n(.*?)\n```\n", Pattern.DOTALL).matcher(section);
    assertThat(block.find()).as("docs/tomcat.md's '%s' section has no ```%s block", SECTION, language).isTrue();
    String text = block.group(1);
    assertThat(block.find()).as("docs/tomcat.md's '%s' section has more than one ```%s block", SECTION, language).isFalse();
    return text;
  }

  /** The services of the Compose YAML, in order: each is a two-space-indented {@code name:} line under {@code services:}. */
  private static List<Service> services(String yaml) {
    assertThat(yaml).as("docs/tomcat.md's Compose YAML").startsWith("services:\n");
    String[] blocks = Pattern.compile("^  (?=[\\w-]+:$)", Pattern.MULTILINE).split(yaml);
    List<Service> services = new ArrayList<>();
    for (int i = 1; i < blocks.length; i++) {
      String block = blocks[i];
      String name = block.substring(0, block.indexOf(':'));
      Matcher volume = find(block, "^\\s+- \\./([^:\\s]+):(/[^:\\s]+)(:ro)?$", name + "'s secret volume (- ./file:/path:ro)");
      services.add(new Service(name, find(block, "^\\s+CATALINA_OPTS: \"([^\"]*)\"$", name + "'s CATALINA_OPTS").group(1),
          volume.group(1), volume.group(2)));
    }
    return services;
  }

  private static Matcher find(String text, String regex, String what) {
    Matcher matcher = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
    assertThat(matcher.find()).as("docs/tomcat.md's Compose YAML has no %s in:%n%s", what, text).isTrue();
    return matcher;
  }

  /**
   * The documented element's attributes with only what two processes on one host need changed: the secret's path
   * (its mount point in the docs) and the ports (5701 and 7800 could be taken by anything else on this machine). The
   * same for both nodes, as one image holds one context.xml.
   */
  private static String managerAttributes(String manager, String secretMount, Path secret, int membershipPort, int transportPort) {
    String port = attribute(manager, "membershipPort");
    String members = attribute(manager, "members");
    assertThat(members).as("members of docs/tomcat.md's Compose <Manager>").isEqualTo("n1:" + port + ",n2:" + port);
    String attributes = manager.substring(MANAGER.length(), manager.length() - "/>".length());
    attributes = withAttribute(attributes, "sharedSecretFile", secretMount, secret.toString());
    attributes = withAttribute(attributes, "membershipPort", port, Integer.toString(membershipPort));
    attributes = withAttribute(attributes, "transportPort", attribute(manager, "transportPort"), Integer.toString(transportPort));
    return withAttribute(attributes, "members", members, members.replace(":" + port, ":" + membershipPort));
  }

  private static String attribute(String element, String name) {
    Matcher value = Pattern.compile("\\s" + name + "=\"([^\"]*)\"").matcher(element);
    assertThat(value.find()).as("docs/tomcat.md's Compose <Manager> has no %s:%n%s", name, element).isTrue();
    return value.group(1);
  }

  /** {@code attributes} with {@code name}'s value, which must be {@code documented}, replaced by {@code value}. */
  private static String withAttribute(String attributes, String name, String documented, String value) {
    String written = name + "=\"" + documented + "\"";
    assertThat(attributes).as("docs/tomcat.md's Compose <Manager>").contains(written);
    return attributes.replace(written, name + "=\"" + value + "\"");
  }

  private static String get(HttpClient client, TomcatProcess node, String path) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(node.url(path))).build(), HttpResponse.BodyHandlers.ofString());
    return response.body().trim();
  }
}
