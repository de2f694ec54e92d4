package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Tomcat node of the benchmark: a {@code CATALINA_BASE} of the real distribution with the benchmark application,
 * the setup's session manager and, for Tandem, the drop-in jar in {@code lib/}; run as a child process and ended by
 * its PID.
 *
 * <p>Implementation notes: driven by the benchmark's main thread, except {@link #figures()} and
 * {@link #cpuNanos()}, which only read.
 */
final class BenchNode implements AutoCloseable {

  static final String CONTEXT = "/bench";
  private static final List<String> WEBAPP_FILES =
      List.of("grow.jsp", "touch.jsp", "stats.jsp", "reset.jsp", "WEB-INF/web.xml");
  // Every setup gets the same JVM. One processor, as the cap allows about that much; the serial collector, because
  // a parallel one's threads would only queue for the same quota. The heap holds a step of several thousand users:
  // each keeps about four sessions alive (the one in use, and abandoned ones until they expire), and a replicating
  // node holds the other node's copies as well; a smaller heap made the nodes GC-bound, not CPU-bound.
  private static final String JVM_OPTIONS = "-Xms2g -Xmx2g -Xmn192m -XX:+UseSerialGC -XX:ActiveProcessorCount=1";
  private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 on Linux for /proc

  final String name;
  final int httpPort;
  private final Path base;
  private final Process process;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * Installs and starts a node.
   *
   * @param config the {@code <Manager>} of the application's context and the {@code <Cluster>} to put inside the Engine
   */
  BenchNode(Path catalinaHome, Path workDir, Path dropinJar, String name, int httpPort, ManagerConfig config,
      boolean flightRecording) throws IOException {
    this.name = name;
    this.httpPort = httpPort;
    this.base = Files.createDirectories(workDir.resolve(name));
    install(catalinaHome, dropinJar, config);
    this.process = launch(catalinaHome, flightRecording);
  }

  private void install(Path catalinaHome, Path dropinJar, ManagerConfig config) throws IOException {
    for (String dir : new String[] {"logs", "temp", "work", "lib", "webapps/bench/META-INF", "webapps/bench/WEB-INF"}) {
      Files.createDirectories(base.resolve(dir));
    }
    copyTree(catalinaHome.resolve("conf"), base.resolve("conf"));
    Path serverXml = base.resolve("conf/server.xml");
    String engine = "<Engine name=\"Catalina\" defaultHost=\"localhost\">";
    String server = Files.readString(serverXml, StandardCharsets.UTF_8);
    if (!server.contains(engine) || !server.contains("port=\"8080\"")) {
      throw new IOException(serverXml + " is not the distribution's default server.xml (no '" + engine + "' or port 8080)");
    }
    server = server.replace("<Server port=\"8005\"", "<Server port=\"-1\"")
        .replace("port=\"8080\"", "port=\"" + httpPort + "\"")
        .replace(engine, "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + name + "\">\n" + config.clusterElement());
    Files.writeString(serverXml, server, StandardCharsets.UTF_8);
    Files.copy(dropinJar, base.resolve("lib/tandem-dropin.jar"), StandardCopyOption.REPLACE_EXISTING);
    if (config.floorValve()) {
      FloorJar.writeInto(base.resolve("lib"));
    }
    Files.writeString(base.resolve("webapps/bench/META-INF/context.xml"),
        "<Context>\n  " + config.managerElement() + "\n</Context>\n", StandardCharsets.UTF_8);
    for (String file : WEBAPP_FILES) {
      try (InputStream in = BenchNode.class.getResourceAsStream("/bench-webapp/" + file)) {
        if (in == null) {
          throw new IOException("benchmark resource /bench-webapp/" + file + " is missing from the classpath");
        }
        Files.copy(in, base.resolve("webapps/bench/" + file), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private Process launch(Path catalinaHome, boolean flightRecording) throws IOException {
    ProcessBuilder builder = new ProcessBuilder("sh", catalinaHome.resolve("bin/catalina.sh").toString(), "run")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("logs/console.log").toFile()));
    Map<String, String> env = builder.environment();
    env.put("CATALINA_HOME", catalinaHome.toString());
    env.put("CATALINA_BASE", base.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    // The recording is written when Tomcat stops (SIGTERM runs the JVM's shutdown hooks), for `jfr print` or JMC.
    // Every collection is logged (pauses and heap before and after): under the cap a full collection's pause is about
    // four times its CPU time, long enough for failure detection to fire, and a step's verdict must be explainable.
    String gcLog = " -Xlog:gc:file=" + base.resolve("logs/gc.log") + ":uptime,level,tags";
    env.put("CATALINA_OPTS", JVM_OPTIONS + gcLog + (flightRecording
        ? " -XX:FlightRecorderOptions:stackdepth=256 -XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
        + base.resolve("node.jfr") : ""));
    env.remove("CATALINA_PID");
    env.remove("JAVA_OPTS");
    return builder.start();
  }

  /** Waits until the application answers. */
  void awaitReady(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Tomcat " + name + " exited; see " + base.resolve("logs/console.log"));
      }
      try {
        if (get("/stats.jsp").statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      process.waitFor(250, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("Tomcat " + name + " did not serve the benchmark application within " + timeout
        + "; see " + base.resolve("logs"));
  }

  /** The node's figures from {@code stats.jsp}: Tandem's replication counters and the live sessions, by name. */
  Map<String, String> figures() throws IOException, InterruptedException {
    HttpResponse<String> response = get("/stats.jsp");
    if (response.statusCode() != 200) {
      throw new IOException("Tomcat " + name + " answered " + response.statusCode() + " for stats.jsp");
    }
    Map<String, String> figures = new HashMap<>();
    for (String line : response.body().split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        figures.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return figures;
  }

  /**
   * Ends every session on this node through the manager's JMX operations ({@code reset.jsp}); returns what the page
   * said. Slow on a capped node with thousands of sessions, hence the long timeout.
   */
  String endAllSessions() throws IOException, InterruptedException {
    HttpResponse<String> response = get("/reset.jsp", Duration.ofSeconds(120));
    if (response.statusCode() != 200) {
      throw new IOException("Tomcat " + name + " answered " + response.statusCode() + " for reset.jsp: " + response.body());
    }
    return response.body().trim();
  }

  private HttpResponse<String> get(String page) throws IOException, InterruptedException {
    return get(page, Duration.ofSeconds(10));
  }

  private HttpResponse<String> get(String page, Duration timeout) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + CONTEXT + page))
        .timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** CPU time the node's JVM used so far (user + system), from {@code /proc}; -1 where it cannot be read. */
  long cpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"), StandardCharsets.US_ASCII);
      // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime: fields 14 and 15
      return ticks * (1_000_000_000L / CLOCK_TICKS_PER_SECOND);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Lines so far that report a failure: every SEVERE line (how BackupManager, and DeltaManager with acknowledged
   * sends, report replication that failed), and Tribes' "Member send is failing" warning, the only trace DeltaManager's
   * default asynchronous sends leave when a copy does not go out.
   */
  long failureLines() throws IOException {
    try (Stream<String> lines = Files.lines(base.resolve("logs/console.log"), StandardCharsets.ISO_8859_1)) {
      return lines.filter(line -> line.contains(" SEVERE ") || line.contains("Member send is failing")).count();
    }
  }

  long pid() {
    return process.pid();
  }

  Path base() {
    return base;
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(20, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
