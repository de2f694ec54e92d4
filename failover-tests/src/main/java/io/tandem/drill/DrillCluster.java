package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * N Tomcat processes with the drop-in jar on loopback, one replication cluster, and what the drill does to them.
 * Knows which nodes the drill meant to be running, so "two copies again" is judged against those.
 *
 * <p>Implementation notes: driven by the drill thread; {@code running} is a synchronized set because the status
 * probe reads it.
 */
final class DrillCluster implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(150);
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  /** Every good node's {@code sharedSecret}. */
  static final String SHARED_SECRET = "drill-shared-secret-0123";
  private final List<TomcatProcess> nodes;
  private final Set<String> running;
  private final HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(2));
  private final PrintStream progress;
  private final Layout layout;
  /** Nodes started beside the cluster's own ({@link #startRogue}): not in {@link #nodes()}, killed on close. */
  private final List<TomcatProcess> strangers = java.util.Collections.synchronizedList(new ArrayList<>());

  private DrillCluster(List<TomcatProcess> nodes, PrintStream progress, Layout layout) {
    this.nodes = List.copyOf(nodes);
    this.running = java.util.Collections.synchronizedSet(new LinkedHashSet<>());
    nodes.forEach(n -> running.add(n.route));
    this.progress = progress;
    this.layout = layout;
  }

  /** What a node of this cluster is started with: the cluster's name and join list, where it lives, its application. */
  private record Layout(DrillSettings settings, Path work, String clusterName, String members, Application application) {
    String managerAttributes(String route, String host, int membershipPort, String joinList, String sharedSecret)
        throws IOException {
      String ofTheNode = application.nodeAttributes().getOrDefault(route, "");
      return "clusterName=\"" + clusterName + "\" sharedSecret=\"" + sharedSecret + "\" scope=\"" + settings.scope()
          + "\" mode=\"" + settings.mode() + "\" bindAddress=\"" + host + "\" transportPort=\"" + freePort()
          + "\" membershipPort=\"" + membershipPort + "\" members=\"" + joinList + "\""
          + (application.managerAttributes().isEmpty() ? "" : " " + application.managerAttributes())
          + (ofTheNode.isEmpty() ? "" : " " + ofTheNode);
    }
  }

  /**
   * What each node's application is set up with beyond the drill's settings.
   *
   * @param realmClass the realm the application logs users in with ({@link TomcatProcess#MEMORY_REALM} or {@link
   *     TomcatProcess#DRILL_REALM})
   * @param managerAttributes more attributes of the {@code <Manager>} ({@code allowedClasses}, {@code maxValueSize}), or ""
   * @param nodeAttributes more attributes of one node's {@code <Manager>}, by route (the full-buddy drill's small store)
   * @param applications the context paths (without the slash) the drill application is deployed under on every node;
   *     with more than one, the {@code <Manager>} goes in {@code conf/context.xml} and one Tandem runtime per node
   *     serves them all (the two-apps drill)
   * @param releaseClasses the application's own classes of the release each node starts with, deployed as {@code
   *     webapps/app.war} (the app-redeploy drill, which drops the next release's WAR in); null for the drill application
   *     as a directory
   */
  record Application(String realmClass, String managerAttributes, Map<String, String> nodeAttributes, List<String> applications,
      Path releaseClasses) {
    static final Application PLAIN = new Application(TomcatProcess.MEMORY_REALM, "");

    Application(String realmClass, String managerAttributes, Map<String, String> nodeAttributes, List<String> applications) {
      this(realmClass, managerAttributes, nodeAttributes, applications, null);
    }

    Application(String realmClass, String managerAttributes) {
      this(realmClass, managerAttributes, Map.of());
    }

    Application(String realmClass, String managerAttributes, Map<String, String> nodeAttributes) {
      this(realmClass, managerAttributes, nodeAttributes, List.of("app"));
    }
  }

  /** Starts {@code size} nodes n1..nN on loopback and waits until every one has a buddy. */
  static DrillCluster start(DrillSettings settings, int size, Path work) throws Exception {
    return start(settings, size, work, null, Application.PLAIN);
  }

  /**
   * Starts {@code size} nodes n1..nN, each in its own network namespace of {@code network} when it is not null
   * (on loopback otherwise), and waits until every one has a buddy.
   */
  static DrillCluster start(DrillSettings settings, int size, Path work, NetworkNamespaces network, Application application)
      throws Exception {
    String cluster = "drill-" + System.nanoTime();
    List<Integer> membershipPorts = new ArrayList<>();
    List<String> hosts = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      membershipPorts.add(freePort());
      hosts.add(network == null ? "127.0.0.1" : network.address(i + 1));
    }
    String members = IntStream.range(0, size).mapToObj(i -> hosts.get(i) + ":" + membershipPorts.get(i))
        .collect(Collectors.joining(","));
    Layout layout = new Layout(settings, work, cluster, members, application);
    List<TomcatProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        String attributes = layout.managerAttributes("n" + (i + 1), hosts.get(i), membershipPorts.get(i), members, SHARED_SECRET);
        if (application.releaseClasses() != null) {
          if (network != null) {
            throw new IllegalArgumentException("an application deployed as a WAR runs on loopback only");
          }
          nodes.add(TomcatProcess.withRelease(settings.catalinaHome(), work, settings.dropin(), "n" + (i + 1), freePort(),
              attributes, application.realmClass(), application.releaseClasses()));
        } else if (application.applications().size() > 1) {
          if (network != null) {
            throw new IllegalArgumentException("several applications per node run on loopback only");
          }
          nodes.add(TomcatProcess.withApplications(settings.catalinaHome(), work, settings.dropin(), "n" + (i + 1), freePort(),
              attributes, application.applications(), ""));
        } else {
          nodes.add(new TomcatProcess(settings.catalinaHome(), work, settings.dropin(), "n" + (i + 1), hosts.get(i), freePort(),
              attributes, application.realmClass(), network == null ? List.of() : network.launcher(i + 1)));
        }
      }
      DrillCluster started = new DrillCluster(nodes, settings.progress(), layout);
      for (TomcatProcess node : nodes) {
        node.awaitReady(START_TIMEOUT);
      }
      if (started.awaitProtected(Duration.ofSeconds(90)) < 0) {
        throw new IllegalStateException("the " + size + " nodes did not form a replication ring within 90 s; see " + work);
      }
      settings.progress().println(size + " Tomcat nodes serve the application and replicate to each other");
      return started;
    } catch (Exception | Error e) {
      nodes.forEach(TomcatProcess::close);
      throw e;
    }
  }

  /**
   * Starts one more Tomcat on loopback as {@code route}, with this cluster's name and join list (and its own membership
   * address) but {@code sharedSecret}; does not wait for it. It is none of the drill's {@link #nodes()} (the load
   * balancer never sends to it, "two copies again" is not judged with it) and is killed when the cluster closes.
   */
  TomcatProcess startRogue(String route, String sharedSecret) throws IOException {
    int membershipPort = freePort();
    String attributes = layout.managerAttributes(route, "127.0.0.1", membershipPort, layout.members() + ",127.0.0.1:" + membershipPort,
        sharedSecret);
    TomcatProcess rogue = new TomcatProcess(layout.settings().catalinaHome(), layout.work(), layout.settings().dropin(), route,
        "127.0.0.1", freePort(), attributes, layout.application().realmClass(), List.of());
    strangers.add(rogue);
    progress.println("Started " + route + " (pid " + rogue.pid() + ") beside the cluster, with "
        + (sharedSecret.equals(SHARED_SECRET) ? "the cluster's" : "another") + " sharedSecret");
    return rogue;
  }

  List<TomcatProcess> nodes() {
    return nodes;
  }

  TomcatProcess node(String route) {
    return nodes.stream().filter(n -> n.route.equals(route)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no node " + route));
  }

  void kill(TomcatProcess node) throws InterruptedException {
    running.remove(node.route);
    node.kill();
    progress.println("SIGKILL " + node.route + " (pid " + node.pid() + ")");
  }

  void stop(TomcatProcess node) throws InterruptedException {
    running.remove(node.route);
    progress.println("SIGTERM " + node.route + " (pid " + node.pid() + "): graceful stop");
    node.stop(Duration.ofSeconds(60));
  }

  void restart(TomcatProcess node) throws Exception {
    restart(node, node.extraJvmOptions());
  }

  /** Starts {@code node} again with {@code jvmOptions} beside the drill's own (the rolling-upgrade drill's raised build). */
  void restart(TomcatProcess node, List<String> jvmOptions) throws Exception {
    node.restart(jvmOptions);
    node.awaitReady(START_TIMEOUT);
    running.add(node.route);
    progress.println("Restarted " + node.route + " (pid " + node.pid() + ")");
  }

  /**
   * Drops the WAR of the release built with {@code releaseClasses} on {@code node} and waits until its application
   * serves that release ({@code release.jsp}). While Tomcat swaps the application the node is none of those the
   * cluster must hold two copies on; it counts again once the new release serves.
   *
   * @return the milliseconds from the drop until the new release served
   */
  long redeploy(TomcatProcess node, Path releaseClasses, int release, Duration timeout) throws Exception {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    running.remove(node.route);
    node.redeploy(releaseClasses);
    progress.println("Dropped release " + release + "'s app.war on " + node.route + " (pid " + node.pid() + ")");
    String expected = "release=" + release;
    while (System.nanoTime() < deadline) {
      Answer answer = http.send(node.url(""), "/app/release.jsp", null, null);
      if (answer.delivery() == Answer.Delivery.ANSWERED && answer.status() == 200 && answer.body().trim().equals(expected)) {
        running.add(node.route);
        long millis = (System.nanoTime() - start) / 1_000_000;
        progress.println(node.route + " serves release " + release + ", " + millis + " ms after the drop");
        return millis;
      }
      Thread.sleep(200); // Tomcat's autoDeploy notices the WAR on its next background check; bounded by the deadline
    }
    throw new IllegalStateException(node.route + " did not serve release " + release + " within " + timeout + " of its WAR's drop; see "
        + node.base.resolve("logs"));
  }

  /** The node's Tandem figures, or empty when it does not answer (dead, hung, starting). */
  Optional<NodeStatus> status(TomcatProcess node) {
    Answer answer = http.send(node.url(""), "/app/status.jsp", null, null);
    if (answer.delivery() != Answer.Delivery.ANSWERED || answer.status() != 200 || !answer.body().contains("buddy=")) {
      return Optional.empty();
    }
    return Optional.of(NodeStatus.parse(node.route, answer.body()));
  }

  /**
   * Waits until every node meant to run answers, sees exactly those nodes in its view, has a buddy among them and
   * holds no session without a copy at its buddy, twice in a row (a node may have taken the new view but not yet
   * adopted what it brings). Returns the milliseconds until the first of the two, or -1 if not within {@code timeout}.
   */
  long awaitProtected(Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long firstSeen = -1;
    while (System.nanoTime() < deadline) {
      if (!isProtected()) {
        firstSeen = -1;
      } else if (firstSeen < 0) {
        firstSeen = System.nanoTime();
      } else {
        return (firstSeen - start) / 1_000_000;
      }
      Thread.sleep(100); // polling the nodes' JMX figures; bounded by the deadline
    }
    return -1;
  }

  private boolean isProtected() {
    Set<String> expected;
    synchronized (running) {
      expected = Set.copyOf(running);
    }
    for (String route : expected) {
      Optional<NodeStatus> status = status(node(route));
      if (status.isEmpty() || status.get().withoutBackup() > 0 || !status.get().members().equals(expected)) {
        return false;
      }
      if (expected.size() > 1 && !expected.contains(status.get().buddy())) {
        return false;
      }
    }
    return true;
  }

  Set<String> running() {
    synchronized (running) {
      return Set.copyOf(running);
    }
  }

  @Override
  public void close() {
    nodes.forEach(TomcatProcess::close);
    synchronized (strangers) {
      strangers.forEach(TomcatProcess::close);
    }
  }

  /**
   * A free port below the kernel's ephemeral range, so no outgoing connection takes it meanwhile, never handed out
   * twice by this process (a cluster names all its ports before any node binds one). Probed on every interface:
   * Tomcat's connector binds the wildcard address, so a port some other program holds on any interface would leave
   * a node that never serves.
   */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(20_000, 32_000);
      if (!HANDED_OUT.add(candidate)) {
        continue;
      }
      try (ServerSocket probe = new ServerSocket(candidate, 1)) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in 20000..32000 after 200 tries");
  }
}
