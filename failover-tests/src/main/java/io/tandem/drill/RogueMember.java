package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * The rogue-member drill's fault and its watch: a third Tomcat with the cluster's name and join list but another
 * {@code sharedSecret} starts beside the running cluster, and from then on a thread samples every good node's
 * figures ({@code Members}, {@code Buddy}, {@code RefusedMembers}, {@code RefusalsByCause}) and the rogue's status
 * page, until {@link #finish()}; then {@link RogueChecker} judges what it saw with the rogue's catalina log.
 *
 * <p>Implementation notes: the watch thread ({@code tandem-drill-rogue-watch}) only appends to the concurrent sample
 * lists and map; the drill thread starts it, stops it in {@link #finish()} or {@link #close()}, then reads them.
 */
final class RogueMember implements AutoCloseable {
  /** The rogue's jvmRoute, so its node id: the third node's, as if a third machine joined. */
  static final String ROUTE = "n3";
  /** Valid (long enough) so the rogue's configuration is accepted: only the handshake can tell it apart. */
  static final String WRONG_SECRET = "rogue-secret-not-the-clusters-4567";
  /** The rogue is in the good nodes' underlying view for about a second before it gives up: sample often. */
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(100);
  private static final Duration STARTUP = Duration.ofSeconds(150);
  /** How long after the rogue's startup every good node may take to show its verdict on it, refused or admitted. */
  private static final Duration VERDICTS = Duration.ofSeconds(15);
  /** The catalina log is written by an asynchronous handler: the cause may land a moment after the startup line. */
  private static final Duration LOG_LAG = Duration.ofSeconds(5);

  private final DrillCluster cluster;
  private final TomcatProcess rogue;
  private final List<NodeStatus> before;
  private final List<NodeStatus> goodNodes = new CopyOnWriteArrayList<>();
  private final Map<Integer, Integer> rogueAnswers = new ConcurrentHashMap<>();
  private final List<NodeStatus> rogueFigures = new CopyOnWriteArrayList<>();
  private final HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(2));
  private final Thread watch;
  private volatile boolean stop;

  private RogueMember(DrillCluster cluster, TomcatProcess rogue, List<NodeStatus> before) {
    this.cluster = cluster;
    this.rogue = rogue;
    this.before = List.copyOf(before);
    this.watch = new Thread(this::watch, "tandem-drill-rogue-watch");
    this.watch.setDaemon(true);
  }

  /**
   * Starts the rogue and the watch, waits until the rogue's Tomcat says its startup is over (its context started or
   * not), then until every good node's figures showed a verdict on it ({@code RefusedMembers} or {@code Members} names
   * it), at most {@link #VERDICTS}, so the owner's kill comes after the owner judged the rogue. {@code knowsTheSecret}
   * gives the rogue the cluster's own secret instead: the drill must then fail (test only).
   */
  static RogueMember start(DrillCluster cluster, boolean knowsTheSecret, PrintStream progress) throws Exception {
    List<NodeStatus> before = cluster.nodes().stream().map(cluster::status).flatMap(Optional::stream).toList();
    TomcatProcess rogue = cluster.startRogue(ROUTE, knowsTheSecret ? DrillCluster.SHARED_SECRET : WRONG_SECRET);
    RogueMember member = new RogueMember(cluster, rogue, before);
    member.watch.start();
    long millis = rogue.awaitServerStartup(STARTUP);
    boolean runs = member.sampleRogue();
    progress.println(ROUTE + "'s Tomcat finished starting after " + millis + " ms; its application " + (runs ? "RUNS" : "does not run"));
    long deadline = System.nanoTime() + VERDICTS.toNanos();
    while (!member.everyGoodNodeJudged() && System.nanoTime() < deadline) {
      Thread.sleep(SAMPLE_EVERY.toMillis()); // the watch's next samples; bounded by VERDICTS
    }
    progress.println(member.everyGoodNodeJudged() ? "Every good node's figures name " + ROUTE + " as refused or as a member"
        : "Not every good node's figures named " + ROUTE + " within " + VERDICTS.toSeconds() + " s of its startup");
    return member;
  }

  /** Whether every running good node had a sample naming the rogue in {@code RefusedMembers} or {@code Members}. */
  private boolean everyGoodNodeJudged() {
    Set<String> judged = goodNodes.stream().filter(s -> s.refused(ROUTE) || s.members().contains(ROUTE)).map(NodeStatus::route)
        .collect(Collectors.toSet());
    return judged.containsAll(cluster.running());
  }

  /** Stops the watch and judges what it saw. */
  RogueChecker.Result finish() throws IOException, InterruptedException {
    stopWatch();
    String log = rogue.catalinaLog();
    long deadline = System.nanoTime() + LOG_LAG.toNanos();
    while (!log.contains("sharedSecret") && System.nanoTime() < deadline) {
      Thread.sleep(200); // the asynchronous file handler; bounded by LOG_LAG
      log = rogue.catalinaLog();
    }
    return RogueChecker.check(new RogueChecker.Observations(ROUTE, before, goodNodes, rogueAnswers, rogueFigures, log));
  }

  private void watch() {
    while (!stop) {
      for (String route : cluster.running()) {
        cluster.status(cluster.node(route)).ifPresent(goodNodes::add);
      }
      sampleRogue();
      try {
        Thread.sleep(SAMPLE_EVERY.toMillis()); // the sampling period; ends with the drill
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One look at the rogue's status page; whether it answered Tandem's figures. */
  private boolean sampleRogue() {
    Answer answer = http.send(rogue.url(""), "/app/status.jsp", null, null);
    int status = answer.delivery() == Answer.Delivery.ANSWERED ? answer.status() : 0;
    rogueAnswers.merge(status, 1, Integer::sum);
    if (status == 200 && answer.body().contains("buddy=")) {
      rogueFigures.add(NodeStatus.parse(ROUTE, answer.body()));
      return true;
    }
    return false;
  }

  private void stopWatch() {
    stop = true;
    watch.interrupt();
    try {
      watch.join(Duration.ofSeconds(10).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the watch if {@link #finish()} did not; the rogue's process ends with the cluster. */
  @Override
  public void close() {
    stopWatch();
  }
}
