package io.tandem.drill;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs one drill end to end: a fresh three-node cluster, the drill's workload through the chosen load balancer, its
 * fault schedule, then the final reads and the checker. Bounded: cluster start, warm-up, every fault step, the load
 * and the final reads each have a deadline, and the workload a maximum number of writes per user.
 */
final class DrillRunner {
  private static final Duration WARM_UP = Duration.ofSeconds(60);
  private static final Duration REPROTECTION = Duration.ofSeconds(90);
  /** Hazelcast declares a silent member dead after about 3 s (issue 3's hung-member test); hang well past it. */
  private static final Duration HANG = Duration.ofSeconds(9);
  private static final Duration PATIENT_HANG = Duration.ofSeconds(10);
  /** The patient clients' request timeout: they wait out the whole hang. */
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int STORM_USERS = 50;
  /** Users logging out at once, and users writing without think time meanwhile, all on the owner. */
  private static final int LOGOUT_USERS = 40;
  private static final int LOGOUT_BUSY_USERS = 10;
  private static final int STORM_MAX_WRITES = 300;
  /**
   * The poison drill's settings beside the drill's own: its value classes and its principal allowed, {@link
   * io.tandem.drill.values.Secret} not, and values over 16 KiB refused ({@link io.tandem.drill.values.DrillValues}).
   */
  static final String POISON_MANAGER_ATTRIBUTES = "allowedClasses=\"io.tandem.drill.values.Note,io.tandem.drill.values.Holder,"
      + "io.tandem.drill.values.Opaque,io.tandem.drill.realm.DrillPrincipal\" maxValueSize=\"16KiB\"";
  /**
   * The full-buddy drill's second node, the first's buddy, holds 256 KiB of backups, and its users write values of
   * 4 KiB: 64 distinct keys fill it, and the users write more than that before the first node is killed. The third
   * node keeps the default bound, so the survivor can protect every session again.
   */
  static final Map<String, String> FULL_BUDDY_NODE_ATTRIBUTES = Map.of("n2", "maxBackupBytes=\"256KiB\"");
  private static final int FULL_BUDDY_VALUE_BYTES = 4096;
  /** How many writes the full buddy must have refused (answered 503) before the owner is killed, and how long to wait. */
  private static final int FULL_BUDDY_REFUSALS = 5;
  private static final Duration FULL_BUDDY_FILLS = Duration.ofSeconds(90);
  /**
   * The test hook that plays the rolling-upgrade drill's next release (core's {@code ProtocolVersions.HIGHEST_PROPERTY}):
   * the same drop-in jar, whose hello claims one protocol version more than the build implements. Honest about what it
   * is: the same code, so the drill proves the negotiation and a mixed cluster, not the next release's own messages.
   */
  static final String RAISE_HIGHEST_PROPERTY = "tandem.protocol.highest";
  /** How long the rolling-upgrade drill waits for every connection to speak what it should after a step. */
  private static final Duration VERSIONS_SETTLE = Duration.ofSeconds(15);
  /** The two-apps drill's applications: the drill application under two context paths, the Manager in conf/context.xml. */
  static final List<String> TWO_APPLICATIONS = List.of("app", "app2");
  /**
   * The app-redeploy drill's nodes may read the application's own session class ({@code Profile}, whose two releases
   * {@link ApplicationReleases} compiles); everything else they read is a String or a Long.
   */
  static final String REDEPLOY_MANAGER_ATTRIBUTES = "allowedClasses=\"io.tandem.drill.values.Profile\"";
  /** From a WAR's drop until its node serves the new release: Tomcat checks every 10 s, then undeploys and deploys. */
  private static final Duration REDEPLOY = Duration.ofSeconds(90);
  private static final Duration LOAD_AFTER_FAULTS = Duration.ofSeconds(3);
  /** Most lines of the nodes' logs a failed drill's report quotes (SessionLogLines): enough to follow one session. */
  private static final int LOG_LINES_EXPLAINING = 80;
  private static final Duration SECOND_FAILURE_AFTER = Duration.ofSeconds(5);
  private static final Duration LOAD_FINISH = Duration.ofMinutes(3);

  private final DrillSettings settings;
  private final boolean rogueKnowsTheSecret;
  private final PrintStream progress;
  private final List<Fault> faults = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  /** Invalidated sessions a node served while the faults were on (the logout drill's replays right after its kill). */
  private final Set<String> resurrectedDuringFaults = new HashSet<>();
  /** Epoch millis when the last outage (hang, partition) ended. */
  private long outageOver;
  /** Rules a drill checks beyond the history that were broken (rolling-upgrade: a connection's version, a refusal). */
  private final List<String> violations = new ArrayList<>();
  /** The rolling-upgrade drill: the highest protocol version the build speaks, as its nodes report it at first. */
  private int builtVersion;
  /** The app-redeploy drill's releases of the application's own classes, by release; empty in the other drills. */
  private final Map<Integer, Path> releases = new TreeMap<>();
  /** The app-redeploy drill: AttributesUnreadable of each node's release-1 application, read just before its redeploy. */
  private final Map<String, Long> unreadableBeforeRedeploy = new TreeMap<>();
  /** The connections the drill's own client saw refused, per node: failover timed from where users see it. */
  private final Refusals refusals = new Refusals();
  /** The rogue-member drill's rogue and watch, from its start to the end of the load; null in the other drills. */
  private RogueMember rogue;

  DrillRunner(DrillSettings settings) {
    this(settings, false);
  }

  /**
   * @param rogueKnowsTheSecret test only: rogue-member gives its third node the cluster's own {@code sharedSecret}, so
   *     it joins and the drill must fail (proof that its checks can)
   */
  DrillRunner(DrillSettings settings, boolean rogueKnowsTheSecret) {
    this.settings = settings;
    this.rogueKnowsTheSecret = rogueKnowsTheSecret;
    this.progress = settings.progress();
  }

  DrillReport run(Drill drill) throws Exception {
    return run(drill, drill.clusterSize());
  }

  /** The drill on {@code nodes} nodes; {@link Drill#runsOn} must allow it. */
  DrillReport run(Drill drill, int nodes) throws Exception {
    if (!drill.runsOn(nodes)) {
      throw new IllegalArgumentException(drill.cliName() + " does not run on " + nodes + " nodes");
    }
    long started = System.currentTimeMillis();
    Path work = settings.work().resolve(drill.cliName() + "-" + nodes + "n-" + settings.scope() + "-" + settings.mode() + "-" + settings.balancer() + "-" + System.nanoTime());
    progress.println("== Drill " + drill.cliName() + " (" + settings.scope() + ", " + settings.mode() + ", " + nodes + " nodes, " + settings.balancer() + "): " + drill.description());
    if (drill == Drill.APP_REDEPLOY) {
      for (int release : ApplicationReleases.RELEASES) {
        releases.put(release, ApplicationReleases.compile(work, release));
      }
    }
    try (NetworkNamespaces network = drill.needsNamespaces() ? NetworkNamespaces.create(nodes, progress) : null;
         DrillCluster cluster = DrillCluster.start(settings, nodes, work, network, application(drill));
         LoadBalancer balancer = balancer(cluster, work)) {
      Workload workload = workload(drill, balancer, cluster);
      workload.start();
      if (!workload.awaitWarm(WARM_UP)) {
        throw new IllegalStateException("the users did not get going within " + WARM_UP + "; see the Tomcat logs in " + work);
      }
      progress.println("Load running (" + workload.history().size() + " requests so far); injecting the faults");
      injectFaults(drill, cluster, network, workload, balancer);
      if (drill == Drill.HANG_PATIENT) {
        notePatientAnswers(workload.history());
      }
      long protectedAgain = awaitFinalProtection(cluster);
      Thread.sleep(LOAD_AFTER_FAULTS.toMillis()); // load on the repaired cluster before the users stop
      workload.finish(LOAD_FINISH);
      List<Operation> history = workload.history();
      progress.println("Load finished: " + history.size() + " requests; reading every session back");
      Set<String> resurrected = new HashSet<>(resurrectedDuringFaults);
      resurrected.addAll(resurrected(cluster, workload, history));
      List<String> violations = new ArrayList<>(this.violations);
      if (rogue != null) {
        RogueChecker.Result rogueSeen = rogue.finish();
        notes.addAll(rogueSeen.notes());
        violations.addAll(rogueSeen.violations());
      }
      Map<Integer, AppResponse> reads = finalReads(workload);
      if (drill == Drill.APP_REDEPLOY) {
        checkRedeploy(cluster, (RedeployWriters) workload, history, reads, violations);
      }
      Verdict verdict = new HistoryChecker(workload.numbersWrites(), workload.principals())
          .check(history, reads, resurrected, faults, refusals.snapshot());
      notes.addAll(workload.notes());
      if (!violations.isEmpty() || settings.mode().equals("SYNC") && !verdict.clean() || verdict.sessionsResurrected() > 0) {
        SessionLogLines.explaining(cluster.nodes().stream().map(n -> n.base).toList(), verdict.examples(), LOG_LINES_EXPLAINING)
            .forEach(line -> notes.add("log " + line));
      }
      return new DrillReport(drill.cliName(), settings.scope(), settings.mode(), balancer.describe(), nodes, users(drill),
          List.copyOf(faults), verdict, protectedAgain, System.currentTimeMillis() - started, List.copyOf(notes),
          List.copyOf(violations));
    } finally {
      if (rogue != null) {
        rogue.close();
      }
    }
  }

  private int users(Drill drill) {
    return switch (drill) {
      case WRITERS_STORM -> STORM_USERS;
      case LOGOUT_STICKS -> LOGOUT_USERS + LOGOUT_BUSY_USERS;
      default -> settings.users();
    };
  }

  private DrillCluster.Application application(Drill drill) {
    return switch (drill) {
      case APP_REDEPLOY -> new DrillCluster.Application(TomcatProcess.MEMORY_REALM, REDEPLOY_MANAGER_ATTRIBUTES, Map.of(),
          List.of("app"), releases.get(ApplicationReleases.RELEASES.get(0)));
      case POISON_VALUES -> new DrillCluster.Application(TomcatProcess.DRILL_REALM, POISON_MANAGER_ATTRIBUTES);
      case FULL_BUDDY -> new DrillCluster.Application(TomcatProcess.MEMORY_REALM, "", FULL_BUDDY_NODE_ATTRIBUTES);
      case TWO_APPS -> new DrillCluster.Application(TomcatProcess.MEMORY_REALM, "", Map.of(), TWO_APPLICATIONS);
      default -> DrillCluster.Application.PLAIN;
    };
  }

  private LoadBalancer balancer(DrillCluster cluster, Path work) throws Exception {
    return switch (settings.balancer()) {
      case "haproxy" -> HaproxyBalancer.start(cluster.nodes(), work);
      case "httpd" -> HttpdBalancer.start(cluster.nodes(), work);
      default -> new StickyBalancer(cluster.nodes(), refusals);
    };
  }

  private Workload workload(Drill drill, LoadBalancer balancer, DrillCluster cluster) {
    return switch (drill) {
      case PARALLEL_REQUESTS -> new ParallelWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites());
      case FORM_LOGIN -> new SessionWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites(), true, false);
      case KILL_BUDDY, ROGUE_MEMBER -> new SessionWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites(), false, true);
      case POISON_VALUES -> new PoisonWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites());
      case LOGOUT_STICKS -> new LogoutWriters(balancer, LOGOUT_USERS, LOGOUT_BUSY_USERS, settings.minWrites(),
          Math.min(settings.maxWrites(), STORM_MAX_WRITES));
      case WRITERS_STORM -> new SessionWriters(user -> balancer, STORM_USERS, settings.minWrites(),
          Math.min(settings.maxWrites(), STORM_MAX_WRITES), new SessionWriters.Shape(false, true, true));
      case HANG_PATIENT -> {
        // Even users wait on their node however long it takes (the drill's sticky client with long timeouts, whatever
        // balancer the others use); odd users give up after the balancer's timeout and move on.
        LoadBalancer patient = new StickyBalancer(cluster.nodes(), PATIENCE, refusals);
        yield new SessionWriters(user -> user % 2 == 0 ? patient : balancer, settings.users(), settings.minWrites(),
            settings.maxWrites(), new SessionWriters.Shape(false, true, false));
      }
      case BIG_PAGES -> new SessionWriters(user -> balancer, settings.users(), settings.minWrites(), settings.maxWrites(),
          new SessionWriters.Shape(false, false, false, true, 0));
      case FULL_BUDDY -> new SessionWriters(user -> balancer, settings.users(), settings.minWrites(), settings.maxWrites(),
          new SessionWriters.Shape(false, true, false, false, FULL_BUDDY_VALUE_BYTES)); // sticky only: Drill.whyStickyOnly
      case TWO_APPS -> new SessionWriters(user -> balancer, settings.users(), settings.minWrites(), settings.maxWrites(),
          new SessionWriters.Shape(false, false, false), TWO_APPLICATIONS);
      case APP_REDEPLOY -> new RedeployWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites());
      default -> new SessionWriters(balancer, settings.users(), settings.minWrites(), settings.maxWrites(), false, false);
    };
  }

  private void injectFaults(Drill drill, DrillCluster cluster, NetworkNamespaces network, Workload workload, LoadBalancer balancer)
      throws Exception {
    TomcatProcess first = cluster.node("n1");
    switch (drill) {
      case KILL_OWNER, FORM_LOGIN, PARALLEL_REQUESTS, WRITERS_STORM, TWO_APPS -> kill(cluster, first);
      case POISON_VALUES -> {
        ((PoisonWriters) workload).faultComing();
        kill(cluster, first);
      }
      case LOGOUT_STICKS -> logOutThenKill(cluster, first, (LogoutWriters) workload, balancer);
      case ROGUE_MEMBER -> {
        // The rogue is watched from its start to the end of the load; the owner dies once the rogue's start is over.
        noteFault(new Fault("ROGUE", RogueMember.ROUTE, System.currentTimeMillis()));
        rogue = RogueMember.start(cluster, rogueKnowsTheSecret, progress);
        kill(cluster, first);
      }
      case FULL_BUDDY -> {
        // Every session starts on n1, whose buddy's store fills: writes that would grow a copy are refused (503)
        // while earlier ones were stored. Killed then, n1 leaves the buddy's copies as the only ones.
        String buddy = cluster.status(first).map(NodeStatus::buddy).orElse("nobody");
        if (!FULL_BUDDY_NODE_ATTRIBUTES.containsKey(buddy)) {
          throw new IllegalStateException("n1's buddy is " + buddy + ", not the node with the small store");
        }
        if (!awaitRefusals(workload, FULL_BUDDY_REFUSALS, FULL_BUDDY_FILLS)) {
          throw new IllegalStateException("the buddy refused fewer than " + FULL_BUDDY_REFUSALS + " writes within "
              + FULL_BUDDY_FILLS + ": its store did not fill; see the Tomcat logs");
        }
        notes.add("the owner's buddy refused " + unavailable(workload.history()) + " writes (503) before the kill");
        kill(cluster, first);
      }
      case KILL_BUDDY -> {
        String buddy = cluster.status(first).map(NodeStatus::buddy)
            .orElseThrow(() -> new IllegalStateException("n1 does not report its buddy"));
        kill(cluster, cluster.node(buddy));
      }
      case TWO_FAILURES -> {
        String adopter = cluster.status(first).map(NodeStatus::buddy)
            .orElseThrow(() -> new IllegalStateException("n1 does not report its buddy"));
        kill(cluster, first);
        awaitReprotection(cluster);
        // Two failures in a row, not at once: losing most of the cluster within moments looks, from the inside, like
        // being cut off, and the survivor then refuses what it cannot confirm (docs/drills.md).
        Thread.sleep(SECOND_FAILURE_AFTER.toMillis());
        kill(cluster, cluster.node(adopter));
      }
      case HANG_OWNER -> outageAndProbe(first, (SessionWriters) workload, "SIGSTOP", first::hang, first::resume, HANG);
      case BIG_PAGES -> {
        // Both faults a page can meet: an owner frozen mid-page (its users move on, then its stale copies are probed),
        // and an owner killed mid-page once the first node's sessions have settled elsewhere.
        outageAndProbe(first, (SessionWriters) workload, "SIGSTOP", first::hang, first::resume, HANG);
        awaitReprotection(cluster);
        kill(cluster, cluster.node("n2"));
      }
      case HANG_PATIENT -> outageAndProbe(first, (SessionWriters) workload, "SIGSTOP", first::hang, first::resume, PATIENT_HANG);
      case PARTITION -> outageAndProbe(first, (SessionWriters) workload, "PARTITION", () -> network.isolate(1), () -> network.heal(1),
          HANG);
      case ROLLING_UPGRADE -> rollingUpgrade(cluster);
      case APP_REDEPLOY -> rollingRedeploy(cluster, (RedeployWriters) workload);
      case ROLLING_RESTART -> {
        for (TomcatProcess node : cluster.nodes()) {
          noteFault(new Fault("SIGTERM", node.route, System.currentTimeMillis()));
          cluster.stop(node);
          awaitReprotection(cluster);
          cluster.restart(node);
          awaitReprotection(cluster);
        }
      }
    }
  }

  /**
   * Each node in turn leaves (n2 SIGKILLed, with n1 upgraded and n3 not: its sessions are taken over across versions;
   * the others stopped with SIGTERM, handing theirs over) and comes back as the raised build. After each step every
   * connection must speak the highest version both its ends speak, and no node may have refused another.
   */
  private void rollingUpgrade(DrillCluster cluster) throws Exception {
    String spoken = cluster.status(cluster.node("n1")).map(NodeStatus::spokenVersions)
        .orElseThrow(() -> new IllegalStateException("n1 does not report its protocol versions"));
    builtVersion = Integer.parseInt(spoken.substring(spoken.lastIndexOf(' ') + 1));
    List<String> raisedBuild = List.of("-D" + RAISE_HIGHEST_PROPERTY + "=" + (builtVersion + 1));
    notes.add("the build speaks protocol version " + spoken + "; each node came back with " + raisedBuild.get(0));
    for (TomcatProcess node : cluster.nodes()) {
      if (node.route.equals("n2")) {
        kill(cluster, node);
      } else {
        noteFault(new Fault("SIGTERM", node.route, System.currentTimeMillis()));
        cluster.stop(node);
      }
      awaitReprotection(cluster);
      cluster.restart(node, raisedBuild);
      awaitReprotection(cluster);
      checkVersions(cluster, "after " + node.route + " came back raised");
    }
  }

  /**
   * A rolling deploy of the application's next release, as an operator makes one: the users have stored their profiles
   * (release 1's class) and stop changing them; then each node in turn gets release 2's WAR dropped over its
   * {@code webapps/app.war} while the load goes on, Tomcat undeploys release 1 (its sessions go to the buddy) and deploys
   * release 2, and the drill waits for two copies of every session before the next node.
   */
  private void rollingRedeploy(DrillCluster cluster, RedeployWriters writers) throws Exception {
    writers.profilesWritten();
    int next = ApplicationReleases.RELEASES.get(1);
    for (TomcatProcess node : cluster.nodes()) {
      // The release-1 application's figures go with it: read them before its WAR is replaced.
      unreadableBeforeRedeploy.put(node.route, cluster.status(node).map(NodeStatus::attributesUnreadable)
          .orElseThrow(() -> new IllegalStateException(node.route + " does not report its figures before its redeploy")));
      noteFault(new Fault("REDEPLOY", node.route, System.currentTimeMillis()));
      long served = cluster.redeploy(node, releases.get(next), next, REDEPLOY);
      notes.add(node.route + " served release " + next + " " + served + " ms after its WAR was dropped");
      awaitReprotection(cluster);
    }
  }

  /**
   * The app-redeploy drill's checks beyond the history: the profiles ({@link ProfileChecker}), and no value dropped as
   * unreadable ({@code AttributesUnreadable}, each release-1 application's read before its redeploy plus each release-2
   * application's now; and the WARN lines in the nodes' logs).
   */
  private void checkRedeploy(DrillCluster cluster, RedeployWriters writers, List<Operation> history, Map<Integer, AppResponse> reads,
      List<String> violations) throws java.io.IOException {
    int last = ApplicationReleases.RELEASES.get(ApplicationReleases.RELEASES.size() - 1);
    ProfileChecker.Result profiles = ProfileChecker.check(history, writers.echoes(), reads, last);
    notes.add("profiles checked in " + profiles.answersChecked() + " acknowledged answers and " + profiles.finalChecked()
        + " final reads (release " + last + "); the final ones were last written by release " + profiles.finalWrittenByRelease());
    violations.addAll(profiles.violations());
    Map<String, Long> unreadableAfter = new TreeMap<>();
    long logged = 0;
    for (TomcatProcess node : cluster.nodes()) {
      unreadableAfter.put(node.route, cluster.status(node).map(NodeStatus::attributesUnreadable).orElse(-1L));
      logged += node.log().lines().filter(line -> line.contains("cannot be restored on this node")).count();
    }
    long unreadable = unreadableBeforeRedeploy.values().stream().mapToLong(Long::longValue).sum()
        + unreadableAfter.values().stream().mapToLong(n -> Math.max(n, 0)).sum();
    notes.add("AttributesUnreadable " + unreadable + " (release 1 before each redeploy " + unreadableBeforeRedeploy + ", release "
        + last + " at the end " + unreadableAfter + "); log lines of a value that cannot be restored: " + logged);
    if (unreadable > 0 || logged > 0 || unreadableAfter.containsValue(-1L)) {
      violations.add("values dropped as unreadable: AttributesUnreadable " + unreadable + ", " + logged + " log lines"
          + (unreadableAfter.containsValue(-1L) ? "; a node did not report its figures at the end" : ""));
    }
  }

  /**
   * Every running node's connections speak the highest version both ends speak (the raised one between two raised
   * nodes, the build's otherwise), each node is connected to every other, and no node counted a PROTOCOL_VERSION
   * refusal or lists a refused member. A connection may still be coming up after a restart: asked again for up to
   * {@link #VERSIONS_SETTLE} before what is seen then is a violation.
   */
  private void checkVersions(DrillCluster cluster, String when) throws InterruptedException {
    long deadline = System.nanoTime() + VERSIONS_SETTLE.toNanos();
    List<String> problems;
    List<String> seen = new ArrayList<>();
    do {
      problems = new ArrayList<>();
      seen.clear();
      Map<String, NodeStatus> statuses = new TreeMap<>();
      for (String route : cluster.running()) {
        Optional<NodeStatus> status = cluster.status(cluster.node(route));
        if (status.isPresent()) {
          statuses.put(route, status.get());
        } else {
          problems.add(route + " did not report its figures");
        }
      }
      for (Map.Entry<String, NodeStatus> entry : statuses.entrySet()) {
        String route = entry.getKey();
        NodeStatus status = entry.getValue();
        seen.add(route + ": " + status.protocolVersions());
        for (Map.Entry<String, NodeStatus> peer : statuses.entrySet()) {
          if (peer.getKey().equals(route)) {
            continue;
          }
          int expected = raised(status) && raised(peer.getValue()) ? builtVersion + 1 : builtVersion;
          Integer spoken = status.versionsByPeer().get(peer.getKey());
          if (spoken == null || spoken != expected) {
            problems.add(route + " speaks " + (spoken == null ? "nothing" : "version " + spoken) + " with " + peer.getKey()
                + ", expected version " + expected + " (" + status.protocolVersions() + ")");
          }
        }
        if (status.refusals("PROTOCOL_VERSION") > 0 || !status.refusedMembers().isEmpty()) {
          problems.add(route + " refused a member (RefusalsByCause " + status.refusalsByCause() + ", RefusedMembers "
              + status.refusedMembers() + ")");
        }
      }
      if (!problems.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(500); // a connection coming up after a restart; bounded by the deadline
      }
    } while (!problems.isEmpty() && System.nanoTime() < deadline);
    problems.forEach(problem -> violations.add(when + ": " + problem));
    notes.add("protocol versions " + when + ": " + String.join("; ", seen));
    progress.println("Protocol versions " + when + ": " + String.join("; ", seen));
  }

  private boolean raised(NodeStatus status) {
    return status.spokenVersions().endsWith(" " + (builtVersion + 1));
  }

  /** Waits until {@code count} writes were answered 503; false if not within {@code timeout}. */
  private static boolean awaitRefusals(Workload workload, int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (unavailable(workload.history()) < count) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(200); // the users write between the checks; bounded by the deadline
    }
    return true;
  }

  private static long unavailable(List<Operation> history) {
    return history.stream().filter(op -> op.kind() == Operation.Kind.WRITE && op.status() == 503).count();
  }

  /**
   * SIGKILLs {@code node}. The users of the nodes whose buddy it was are affected too (their SYNC writes waited on
   * it): the nodes are asked for their buddy just before the kill.
   */
  private void kill(DrillCluster cluster, TomcatProcess node) throws InterruptedException {
    Set<String> dependents = new java.util.TreeSet<>();
    for (String route : cluster.running()) {
      if (!route.equals(node.route) && cluster.status(cluster.node(route)).map(NodeStatus::buddy).filter(node.route::equals).isPresent()) {
        dependents.add(route);
      }
    }
    noteFault(new Fault("SIGKILL", node.route, System.currentTimeMillis(), dependents));
    cluster.kill(node);
  }

  /**
   * Every user logs out at once; the owner is SIGKILLed the moment the last logout is answered; each session whose
   * logout was acknowledged is then asked for on every running node directly and through the balancer (the old
   * cookie, as a browser that kept it sends it). Finding one is a resurrection. The users go on afterwards.
   */
  private void logOutThenKill(DrillCluster cluster, TomcatProcess owner, LogoutWriters writers, LoadBalancer balancer) throws Exception {
    writers.logOut();
    if (!writers.awaitLogoutsAnswered(Duration.ofSeconds(60))) {
      throw new IllegalStateException("the users' logouts were not all answered within 60 s");
    }
    kill(cluster, owner);
    long[] span = writers.logoutAnswerSpan();
    long killedAt = faults.get(faults.size() - 1).atMillis();
    notes.add("SIGKILL " + owner.route + " " + (killedAt - span[1]) + " ms after the last logout answer, " + (killedAt - span[0])
        + " ms after the first");
    Map<Integer, String> loggedOut = writers.loggedOut();
    HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(10));
    Map<String, Integer> answers = new TreeMap<>();
    for (String id : loggedOut.values()) {
      for (String route : cluster.running()) {
        replay(http.send(cluster.node(route).url(""), writers.page(), null, id), id, route, answers);
      }
      replay(balancer.send(writers.page(), null, id, 0), id, "the balancer's node", answers);
    }
    notes.add("right after the kill, replays of " + loggedOut.size() + " logged-out cookies on every node and through the balancer"
        + " were answered " + answers + "; " + resurrectedDuringFaults.size() + " sessions found again");
    writers.goOn();
  }

  private void noteFault(Fault fault) {
    faults.add(fault);
  }

  /** What the patient users (even accounts) were answered for the requests they kept open through the hang. */
  private void notePatientAnswers(List<Operation> history) {
    long hungAt = faults.get(0).atMillis();
    Map<String, Integer> answers = new TreeMap<>();
    for (Operation op : history) {
      if (op.account() % 2 == 0 && op.startedMillis() < outageOver && op.endedMillis() > hungAt) {
        answers.merge(op.status() == 0 ? "no answer" : Integer.toString(op.status()), 1, Integer::sum);
      }
    }
    notes.add("the patient users' requests open during the hang were answered " + answers);
  }

  private void replay(Answer answer, String id, String where, Map<String, Integer> answers) {
    AppResponse.Kind kind = answer.app().kind();
    String said = answer.delivery() != Answer.Delivery.ANSWERED ? "no answer"
        : kind == AppResponse.Kind.NONE ? Integer.toString(answer.status()) : kind.name().toLowerCase(java.util.Locale.ROOT);
    answers.merge(said, 1, Integer::sum);
    if (kind == AppResponse.Kind.SESSION) {
      resurrectedDuringFaults.add(id);
      progress.println("Session " + id + " was logged out, yet " + where + " serves it");
    }
  }

  /** -1 when one node is left (a session cannot have two copies) or the copies did not come back in time. */
  private long awaitFinalProtection(DrillCluster cluster) throws InterruptedException {
    if (cluster.running().size() < 2) {
      progress.println("One node left: every session has its single copy there");
      return -1;
    }
    long millis = cluster.awaitProtected(REPROTECTION);
    progress.println(millis < 0 ? "Sessions did NOT all have two copies again within " + REPROTECTION
        : "Every session has two copies again, " + millis + " ms after the last fault was over");
    return millis;
  }

  private void awaitReprotection(DrillCluster cluster) throws InterruptedException {
    long millis = cluster.awaitProtected(REPROTECTION);
    if (millis < 0) {
      throw new IllegalStateException("the cluster did not hold two copies of every session again within " + REPROTECTION);
    }
    progress.println("Two copies of every session again after " + millis + " ms");
  }

  /** A step of a fault that may fail: a signal, an {@code ip} command. */
  private interface FaultStep {
    void run() throws Exception;
  }

  /**
   * Takes the node out past failure detection (frozen, or cut off) so its sessions move on, brings it back, then
   * sends each of its users' next write to it with the cookie from before: it must not accept a write on its stale
   * copy.
   */
  private void outageAndProbe(TomcatProcess node, SessionWriters writers, String what, FaultStep begin, FaultStep end, Duration outage)
      throws Exception {
    Map<Integer, String> before = writers.sessionIds();
    noteFault(new Fault(what, node.route, System.currentTimeMillis()));
    begin.run();
    progress.println(what + " " + node.route + " (pid " + node.pid() + ") for " + outage.toSeconds() + " s");
    Thread.sleep(outage.toMillis()); // the outage itself
    end.run();
    outageOver = System.currentTimeMillis();
    progress.println(what + " of " + node.route + " is over");
    int pinned = 0;
    Map<Integer, String> now = writers.sessionIds();
    for (Map.Entry<Integer, String> user : before.entrySet()) {
      // Only a cookie the user still holds (its route aside): a session it invalidated meanwhile is rightly gone.
      boolean sameSession = baseId(user.getValue()).equals(baseId(now.getOrDefault(user.getKey(), "")));
      if (user.getValue().endsWith("." + node.route) && sameSession) {
        writers.pin(user.getKey(), new SessionWriters.Pin(node, user.getValue()));
        pinned++;
      }
    }
    progress.println("Sending the next write of " + pinned + " users to the woken " + node.route + " with their old cookie");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!writers.pinsSent() && System.nanoTime() < deadline) {
      Thread.sleep(50); // the users send the pinned writes between their pages; bounded by the deadline
    }
  }

  private static String baseId(String sessionId) {
    int dot = sessionId.indexOf('.');
    return dot < 0 ? sessionId : sessionId.substring(0, dot);
  }

  /** Each account's session read back through its own browser, retried while no node answers. */
  private Map<Integer, AppResponse> finalReads(Workload workload) throws InterruptedException {
    Map<Integer, AppResponse> reads = new TreeMap<>();
    for (Map.Entry<Integer, Browser> account : workload.browsers().entrySet()) {
      AppResponse read = AppResponse.NONE;
      for (int attempt = 0; attempt < 10 && (read.kind() == AppResponse.Kind.NONE || read.kind() == AppResponse.Kind.LOGIN_PAGE); attempt++) {
        read = account.getValue().get(workload.page(account.getKey())).app();
        if (read.kind() == AppResponse.Kind.NONE) {
          Thread.sleep(500);
        }
      }
      reads.put(account.getKey(), read);
    }
    return reads;
  }

  /** Ids of acknowledged invalidations that a running node still serves, each asked of every running node directly. */
  private Set<String> resurrected(DrillCluster cluster, Workload workload, List<Operation> history) {
    HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(5));
    Set<String> served = new HashSet<>();
    for (String id : HistoryChecker.acknowledgedInvalidations(history)) {
      for (String route : cluster.running()) {
        for (String page : workload.pages()) {
          AppResponse read = http.send(cluster.node(route).url(""), page, null, id).app();
          if (read.kind() == AppResponse.Kind.SESSION) {
            served.add(id);
          }
        }
      }
    }
    return served;
  }
}
