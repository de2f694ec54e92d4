package io.tandem.drill;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Three Tomcat processes with the drop-in jar; users write distinct values into their sessions through a sticky
 * client; node n1 is killed with SIGKILL mid-run; at the end every user's session is read back and every
 * acknowledged write must be there. Bounded: a fixed number of writes per user, every request has a timeout.
 */
final class KillOwnerDrill {
  private final Path catalinaHome;
  private final Path dropin;
  private final Path work;
  private final String scope;
  private final String mode;
  private final int users;
  private final int writesPerUser;
  private final PrintStream progress;

  KillOwnerDrill(Path catalinaHome, Path dropin, Path work, String scope, String mode, int users, int writesPerUser, PrintStream progress) {
    this.catalinaHome = catalinaHome;
    this.dropin = dropin;
    this.work = work;
    this.scope = scope;
    this.mode = mode;
    this.users = users;
    this.writesPerUser = writesPerUser;
    this.progress = progress;
  }

  DrillReport run() throws Exception {
    long started = System.currentTimeMillis();
    List<TomcatProcess> nodes = new ArrayList<>();
    try {
      startCluster(nodes);
      ConcurrentLinkedQueue<Operation> history = new ConcurrentLinkedQueue<>();
      CountDownLatch warmedUp = new CountDownLatch(users);
      List<StickyClient> clients = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        StickyClient client = new StickyClient(nodes, u);
        clients.add(client);
        int user = u;
        Thread t = new Thread(() -> work(user, client, history, warmedUp), "drill-user-" + u);
        threads.add(t);
        t.start();
      }
      warmedUp.await(60, TimeUnit.SECONDS);
      long faultAt = System.currentTimeMillis();
      progress.println("Killing n1 (SIGKILL) with " + history.size() + " writes done");
      nodes.get(0).kill();
      for (Thread t : threads) {
        t.join(TimeUnit.MINUTES.toMillis(3));
      }
      progress.println("Load finished: " + history.size() + " writes; checking every user's session");
      return check(nodes, clients, history, faultAt, started);
    } finally {
      nodes.forEach(TomcatProcess::close);
    }
  }

  private void startCluster(List<TomcatProcess> nodes) throws Exception {
    String cluster = "drill-" + System.nanoTime();
    int[] membership = {freePort(), freePort(), freePort()};
    String members = "127.0.0.1:" + membership[0] + ",127.0.0.1:" + membership[1] + ",127.0.0.1:" + membership[2];
    for (int i = 0; i < 3; i++) {
      String attributes = "clusterName=\"" + cluster + "\" sharedSecret=\"drill-shared-secret-0123\" scope=\"" + scope
          + "\" mode=\"" + mode + "\" transportPort=\"" + freePort() + "\" membershipPort=\"" + membership[i]
          + "\" members=\"" + members + "\"";
      nodes.add(new TomcatProcess(catalinaHome, work, dropin, "n" + (i + 1), freePort(), attributes));
    }
    for (TomcatProcess node : nodes) {
      node.awaitReady(Duration.ofSeconds(120));
    }
    progress.println("Three Tomcat nodes serve the application; waiting for the replication ring");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (!nodes.stream().allMatch(n -> logContains(n, "buddy is now")) && System.nanoTime() < deadline) {
      Thread.sleep(200); // polling a child process's log; bounded by the deadline
    }
  }

  private static boolean logContains(TomcatProcess node, String text) {
    try {
      return node.log().contains(text);
    } catch (IOException e) {
      return false;
    }
  }

  private void work(int user, StickyClient client, ConcurrentLinkedQueue<Operation> history, CountDownLatch warmedUp) {
    for (int w = 0; w < writesPerUser; w++) {
      String key = "k" + w;
      String value = "u" + user + "-v" + w;
      long start = System.currentTimeMillis();
      StickyClient.Answer answer = client.get("/app/session.jsp?action=set&name=" + key + "&value=" + value);
      Outcome outcome = answer.outcome() == Outcome.OK && !answer.body().equals("ok") ? Outcome.FAILED : answer.outcome();
      history.add(new Operation(user, key, value, answer.node(), outcome, start, System.currentTimeMillis()));
      if (w == writesPerUser / 3) {
        warmedUp.countDown();
      }
      try {
        Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60)); // think time between a user's pages
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private DrillReport check(List<TomcatProcess> nodes, List<StickyClient> clients, ConcurrentLinkedQueue<Operation> history,
      long faultAt, long started) {
    int acknowledged = 0;
    int lost = 0;
    int sessionsLost = 0;
    int failed = 0;
    long firstSuccessAfterFault = -1;
    Map<Integer, Map<String, String>> finalState = new TreeMap<>();
    for (int u = 0; u < clients.size(); u++) {
      StickyClient.Answer answer = clients.get(u).get("/app/session.jsp");
      finalState.put(u, parse(answer.body()));
      if (answer.body().equals("no-session")) {
        sessionsLost++;
      }
    }
    for (Operation op : history) {
      if (op.outcome() == Outcome.OK) {
        acknowledged++;
        if (!op.value().equals(finalState.get(op.user()).get(op.key()))) {
          lost++;
          progress.println("LOST: user " + op.user() + " " + op.key() + "=" + op.value() + " acknowledged by " + op.node());
        }
        if (op.startedMillis() >= faultAt && (firstSuccessAfterFault < 0 || op.endedMillis() < firstSuccessAfterFault)) {
          firstSuccessAfterFault = op.endedMillis();
        }
      } else {
        failed++;
      }
    }
    return new DrillReport("kill-owner", scope, mode, clients.size(), acknowledged, lost, sessionsLost, failed,
        firstSuccessAfterFault < 0 ? -1 : firstSuccessAfterFault - faultAt, System.currentTimeMillis() - started);
  }

  /** Parses the application's "{k0=v0, k1=v1}" listing. */
  static Map<String, String> parse(String listing) {
    Map<String, String> values = new TreeMap<>();
    if (!listing.startsWith("{") || listing.length() < 2) {
      return values;
    }
    for (String pair : listing.substring(1, listing.length() - 1).split(", ")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        values.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return values;
  }

  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = ThreadLocalRandom.current().nextInt(20_000, 32_000);
      try (ServerSocket probe = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    try (ServerSocket any = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return any.getLocalPort();
    }
  }

  static void writeJson(Path file, DrillReport report) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, report.toJson() + "\n");
  }
}
