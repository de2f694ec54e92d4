package io.tandem.drill;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * One node of a real Apache Tomcat distribution, as an operator installs Tandem: its own {@code CATALINA_BASE}
 * with the drop-in jar in {@code lib/} and a web application whose {@code META-INF/context.xml} names the Manager.
 * Runs as a child process the drill started, which it kills (SIGKILL), hangs (SIGSTOP), resumes (SIGCONT) and
 * stops (SIGTERM: Tomcat's own graceful shutdown) by its PID, and can start again on the same base and ports.
 *
 * <p>Implementation notes: driven by one drill thread at a time; {@code process} is volatile so monitoring threads
 * see a restart.
 */
final class TomcatProcess implements AutoCloseable {
  /** Users of the drill application's FORM login: {@code user0..}, all with {@link #PASSWORD}. */
  static final int LOGIN_USERS = 64;
  static final String PASSWORD = "drill-password";
  private static final List<String> WEBAPP_FILES =
      List.of("session.jsp", "bigpage.jsp", "poison.jsp", "status.jsp", "login.html", "login-error.html", "WEB-INF/web.xml");
  /** The poison drill's value classes, in the application's {@code WEB-INF/classes} (the session's class loader). */
  private static final List<Class<?>> WEBAPP_CLASSES = List.of(io.tandem.drill.values.DrillValues.class,
      io.tandem.drill.values.Note.class, io.tandem.drill.values.Secret.class, io.tandem.drill.values.Holder.class,
      io.tandem.drill.values.Opaque.class);
  /** The realm with a custom principal, in a jar in the node's {@code lib/} (the server's class loader). */
  private static final List<String> REALM_CLASSES =
      List.of("io/tandem/drill/realm/DrillRealm.class", "io/tandem/drill/realm/DrillPrincipal.class");
  /** Tomcat's own realm, reading {@code conf/drill-users.xml}. */
  static final String MEMORY_REALM = "org.apache.catalina.realm.MemoryRealm";
  /** {@link #MEMORY_REALM} returning a custom principal class ({@code io.tandem.drill.realm.DrillPrincipal}). */
  static final String DRILL_REALM = "io.tandem.drill.realm.DrillRealm";

  final String route;
  final String host;
  final int httpPort;
  final Path base;
  /** The context paths (without the slash) the drill application is deployed under: {@code app} unless told. */
  final List<String> applications;
  private final Path catalinaHome;
  private final List<String> launcher;
  private volatile Process process;
  /** JVM options of the next launches beside the drill's own (the rolling-upgrade drill's raised build). */
  private volatile List<String> extraJvmOptions = List.of();
  /** What each application's {@code META-INF/context.xml} holds, kept for a redeploy of a release ({@link #redeploy}). */
  private final String managerAttributes;
  private final String realmClass;

  /** A node on loopback. */
  TomcatProcess(Path catalinaHome, Path workDir, Path dropinJar, String route, int httpPort, String managerAttributes) throws IOException {
    this(catalinaHome, workDir, dropinJar, route, "127.0.0.1", httpPort, managerAttributes, MEMORY_REALM, List.of());
  }

  /**
   * A node reached at {@code host}, started through {@code launcher} (e.g. {@code ip netns exec <ns>}, which
   * execs the command, so the PID is still Tomcat's), whose application logs users in with {@code realmClass}
   * ({@link #MEMORY_REALM} or {@link #DRILL_REALM}, both reading the drill's users).
   */
  TomcatProcess(Path catalinaHome, Path workDir, Path dropinJar, String route, String host, int httpPort,
      String managerAttributes, String realmClass, List<String> launcher) throws IOException {
    this(catalinaHome, workDir, dropinJar, route, host, httpPort, managerAttributes, realmClass, launcher, List.of("app"), null, null);
  }

  /**
   * A node on loopback whose application {@code app} is deployed as {@code webapps/app.war}, as an operator ships a
   * build, with the classes under {@code releaseClasses} (a release of the application's own classes, the app-redeploy
   * drill's {@code Profile}) in its {@code WEB-INF/classes}; {@link #redeploy} replaces the WAR with another release.
   */
  static TomcatProcess withRelease(Path catalinaHome, Path workDir, Path dropinJar, String route, int httpPort,
      String managerAttributes, String realmClass, Path releaseClasses) throws IOException {
    return new TomcatProcess(catalinaHome, workDir, dropinJar, route, "127.0.0.1", httpPort, managerAttributes, realmClass,
        List.of(), List.of("app"), null, releaseClasses);
  }

  /**
   * A node on loopback running the drill application under each of {@code applications} (context paths without the
   * slash), with the {@code <Manager>} in {@code conf/context.xml}, as an operator covers every application of a node:
   * one Tandem runtime per node then serves them all. {@code contextAttributes} go on that file's {@code <Context>}
   * (e.g. {@code sessionCookiePath="/"}, with which Tomcat gives a user's sessions one id in every application).
   */
  static TomcatProcess withApplications(Path catalinaHome, Path workDir, Path dropinJar, String route, int httpPort,
      String managerAttributes, List<String> applications, String contextAttributes) throws IOException {
    return new TomcatProcess(catalinaHome, workDir, dropinJar, route, "127.0.0.1", httpPort, managerAttributes,
        MEMORY_REALM, List.of(), applications, contextAttributes.isEmpty() ? "<Context>" : "<Context " + contextAttributes + ">", null);
  }

  /**
   * @param confContext conf/context.xml's opening {@code <Context>} when it holds the Manager; null when each application's does
   * @param releaseClasses the application's own classes of the release to deploy as a WAR, or null for the drill
   *     application as a directory
   */
  private TomcatProcess(Path catalinaHome, Path workDir, Path dropinJar, String route, String host, int httpPort,
      String managerAttributes, String realmClass, List<String> launcher, List<String> applications,
      String confContext, Path releaseClasses) throws IOException {
    boolean managerInConfContext = confContext != null;
    this.managerAttributes = managerInConfContext ? null : managerAttributes;
    this.realmClass = realmClass;
    this.catalinaHome = catalinaHome;
    this.route = route;
    this.host = host;
    this.launcher = List.copyOf(launcher);
    this.httpPort = httpPort;
    this.applications = List.copyOf(applications);
    this.base = Files.createDirectories(workDir.resolve(route));
    copyTree(catalinaHome.resolve("conf"), base.resolve("conf"));
    if (managerInConfContext) {
      Path contextXml = base.resolve("conf/context.xml");
      String global = Files.readString(contextXml, StandardCharsets.UTF_8);
      Files.writeString(contextXml, global.replace("<Context>", confContext).replace("</Context>",
          "    <Manager className=\"io.tandem.tomcat.TandemManager\" " + managerAttributes + "/>\n</Context>"), StandardCharsets.UTF_8);
    }
    installNode(dropinJar);
    if (releaseClasses != null) {
      writeWar(base.resolve("webapps/app.war"), releaseClasses);
    } else {
      for (String application : this.applications) {
        install(application, managerInConfContext ? null : managerAttributes, realmClass);
      }
    }
    this.process = launch();
  }

  /**
   * Replaces {@code webapps/app.war} with the application built with {@code releaseClasses}, as an operator drops a new
   * build in: written beside it first, then moved over it in one step, so Tomcat (its Host's {@code autoDeploy}, on its
   * next background check, every 10 s) never reads half a WAR. Tomcat then undeploys the running application and
   * deploys the new one; this returns at once.
   */
  void redeploy(Path releaseClasses) throws IOException {
    Path war = base.resolve("webapps/app.war");
    Path next = base.resolve("webapps/app.war.next"); // not a .war: autoDeploy ignores it
    writeWar(next, releaseClasses);
    Files.move(next, war, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The drill application as a WAR, with the files {@link #install} puts in its directory and {@code releaseClasses}. */
  private void writeWar(Path war, Path releaseClasses) throws IOException {
    Files.createDirectories(war.getParent());
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(war))) {
      out.putNextEntry(new JarEntry("META-INF/context.xml"));
      out.write(contextXml(managerAttributes, realmClass).getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
      for (String file : WEBAPP_FILES) {
        addResource(out, "/drill-webapp/" + file, file);
      }
      addResource(out, "/drill-webapp/profile.jsp", "secure/profile.jsp");
      addResource(out, "/drill-webapp/release.jsp", "release.jsp");
      for (Class<?> type : WEBAPP_CLASSES) {
        String file = type.getName().replace('.', '/') + ".class";
        addResource(out, "/" + file, "WEB-INF/classes/" + file);
      }
      try (Stream<Path> files = Files.walk(releaseClasses)) {
        for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
          out.putNextEntry(new JarEntry("WEB-INF/classes/" + releaseClasses.relativize(file).toString().replace('\\', '/')));
          Files.copy(file, out);
          out.closeEntry();
        }
      }
    }
  }

  private static void addResource(JarOutputStream out, String resource, String entry) throws IOException {
    try (InputStream in = TomcatProcess.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("drill resource " + resource + " is missing from the classpath");
      }
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
    }
  }

  private String contextXml(String managerAttributes, String realmClass) {
    return "<Context>\n"
        + "  <Parameter name=\"drill.node\" value=\"" + route + "\" override=\"false\"/>\n"
        + "  <Realm className=\"" + realmClass + "\" pathname=\"conf/drill-users.xml\"/>\n"
        + (managerAttributes == null ? "" : "  <Manager className=\"io.tandem.tomcat.TandemManager\" " + managerAttributes + "/>\n")
        + "</Context>\n";
  }

  /** What the node has once, whatever its applications: server.xml's ports and route, the users, the jars in lib/. */
  private void installNode(Path dropinJar) throws IOException {
    for (String dir : new String[] {"logs", "temp", "work", "lib"}) {
      Files.createDirectories(base.resolve(dir));
    }
    Path serverXml = base.resolve("conf/server.xml");
    String server = Files.readString(serverXml, StandardCharsets.UTF_8)
        .replace("<Server port=\"8005\"", "<Server port=\"-1\"")
        .replace("port=\"8080\"", "port=\"" + httpPort + "\"")
        .replace("<Engine name=\"Catalina\" defaultHost=\"localhost\">", "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + route + "\">");
    Files.writeString(serverXml, server, StandardCharsets.UTF_8);
    Files.writeString(base.resolve("conf/drill-users.xml"), IntStream.range(0, LOGIN_USERS)
        .mapToObj(u -> "  <user username=\"user" + u + "\" password=\"" + PASSWORD + "\" roles=\"drill\"/>")
        .collect(Collectors.joining("\n", "<tomcat-users>\n", "\n</tomcat-users>\n")), StandardCharsets.UTF_8);
    Files.copy(dropinJar, base.resolve("lib/tandem-dropin.jar"), StandardCopyOption.REPLACE_EXISTING);
    writeJar(base.resolve("lib/drill-realm.jar"), REALM_CLASSES);
  }

  /** @param managerAttributes the application's own {@code <Manager>}, or null when {@code conf/context.xml} has it */
  private void install(String application, String managerAttributes, String realmClass) throws IOException {
    String app = "webapps/" + application;
    for (String dir : new String[] {app + "/META-INF", app + "/WEB-INF", app + "/secure", app + "/WEB-INF/classes/io/tandem/drill/values"}) {
      Files.createDirectories(base.resolve(dir));
    }
    Files.writeString(base.resolve(app + "/META-INF/context.xml"), contextXml(managerAttributes, realmClass), StandardCharsets.UTF_8);
    for (String file : WEBAPP_FILES) {
      copyResource("/drill-webapp/" + file, base.resolve(app + "/" + file));
    }
    copyResource("/drill-webapp/session.jsp", base.resolve(app + "/secure/session.jsp"));
    copyResource("/drill-webapp/poison.jsp", base.resolve(app + "/secure/poison.jsp"));
    for (Class<?> type : WEBAPP_CLASSES) {
      String file = type.getName().replace('.', '/') + ".class";
      copyResource("/" + file, base.resolve(app + "/WEB-INF/classes/" + file));
    }
  }

  /** A jar of the drill's own classes, as an operator drops a realm's jar into {@code lib/}. */
  private static void writeJar(Path jar, List<String> classFiles) throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String file : classFiles) {
        out.putNextEntry(new JarEntry(file));
        try (InputStream in = TomcatProcess.class.getResourceAsStream("/" + file)) {
          if (in == null) {
            throw new IOException("drill class " + file + " is missing from the classpath");
          }
          in.transferTo(out);
        }
        out.closeEntry();
      }
    }
  }

  private Process launch() throws IOException {
    List<String> command = new java.util.ArrayList<>(launcher);
    command.addAll(List.of("sh", catalinaHome.resolve("bin/catalina.sh").toString(), "run"));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("logs/console.log").toFile()));
    Map<String, String> env = builder.environment();
    env.put("CATALINA_HOME", catalinaHome.toString());
    env.put("CATALINA_BASE", base.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    // Every collection is logged beside the node's other logs: a node that went silent for seconds (a member the
    // others suspected though nobody stopped it) is told apart from a collection pause by this file.
    env.put("CATALINA_OPTS", "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xlog:gc:file="
        + base.resolve("logs/gc.log") + ":uptime,level,tags" + extraJvmOptions.stream().map(o -> " " + o).collect(Collectors.joining()));
    env.remove("CATALINA_PID");
    env.remove("JAVA_OPTS");
    return builder.start();
  }

  /** Waits until the web application answers. */
  void awaitReady(Duration timeout) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    String lastSeen = "no connection";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Tomcat " + route + " exited; see " + base.resolve("logs/console.log") + errorsLogged());
      }
      try {
        boolean all = true;
        for (String application : applications) {
          HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url("/" + application + "/status.jsp")))
              .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
          if (response.statusCode() != 200) {
            all = false;
            lastSeen = "HTTP " + response.statusCode() + " from /" + application;
            break;
          }
        }
        if (all) {
          return;
        }
      } catch (IOException e) {
        lastSeen = e.toString(); // not listening yet
      }
      process.waitFor(250, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("Tomcat " + route + " did not serve the application on port " + httpPort + " within " + timeout
        + " (last answer: " + lastSeen + "); see " + base.resolve("logs") + errorsLogged());
  }

  /**
   * Waits until Tomcat logs the end of its startup ({@code Server startup in [n] milliseconds}), whether or not the
   * web application started, and returns how long that took from the call, in ms. A node whose application fails to
   * start never passes {@link #awaitReady(Duration)}: this is how the drill waits for one that is meant to fail.
   */
  long awaitServerStartup(Duration timeout) throws Exception {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Tomcat " + route + " exited; see " + base.resolve("logs/console.log") + errorsLogged());
      }
      if (log().contains("Server startup in")) {
        return (System.nanoTime() - start) / 1_000_000;
      }
      process.waitFor(250, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("Tomcat " + route + " did not finish starting within " + timeout + "; see " + base.resolve("logs")
        + errorsLogged());
  }

  /** The node's first SEVERE lines, each with the line after it (the exception), so a test report says why. */
  private String errorsLogged() {
    try {
      List<String> lines = Files.readAllLines(base.resolve("logs/console.log"), StandardCharsets.ISO_8859_1);
      List<String> severe = new java.util.ArrayList<>();
      for (int i = 0; i < lines.size() && severe.size() < 10; i++) {
        if (lines.get(i).contains("SEVERE")) {
          severe.add(lines.get(i));
          if (i + 1 < lines.size()) {
            severe.add("  " + lines.get(i + 1));
          }
        }
      }
      return severe.isEmpty() ? "; it logged nothing SEVERE" : "; it logged:\n  " + String.join("\n  ", severe);
    } catch (IOException e) {
      return "; its log could not be read: " + e.getMessage();
    }
  }

  /** What Tomcat printed so far (its console, where Tandem's JULI logging goes too), over every run of this node. */
  String log() throws IOException {
    return Files.readString(base.resolve("logs/console.log"), StandardCharsets.ISO_8859_1);
  }

  /**
   * What Tomcat's file handler wrote to {@code logs/catalina.<date>.log} so far (Tandem's JULI logging lands there too),
   * every day's file in order; "" before it wrote any. The handler is asynchronous: a line may appear a moment late.
   */
  String catalinaLog() throws IOException {
    try (Stream<Path> files = Files.list(base.resolve("logs"))) {
      StringBuilder text = new StringBuilder();
      for (Path file : files.filter(f -> f.getFileName().toString().matches("catalina\\..*\\.log")).sorted().toList()) {
        text.append(Files.readString(file, StandardCharsets.ISO_8859_1));
      }
      return text.toString();
    }
  }

  String url(String path) {
    return "http://" + host + ":" + httpPort + path;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: the JVM gets no chance to hand anything over. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("Tomcat " + route + " (pid " + pid() + ") survived SIGKILL for 30 s");
    }
  }

  /** SIGSTOP: the process freezes with its sockets open, as under a long GC pause or a stalled VM. */
  void hang() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #hang()}. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  /** SIGTERM: Tomcat's shutdown hook stops the context, so Tandem hands its sessions over before the JVM exits. */
  void stop(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("Tomcat " + route + " (pid " + pid() + ") did not stop within " + timeout + " of SIGTERM");
    }
  }

  /** Starts this node again on the same base and ports, after {@link #kill()} or {@link #stop(Duration)}. */
  void restart() throws IOException {
    restart(extraJvmOptions);
  }

  List<String> extraJvmOptions() {
    return extraJvmOptions;
  }

  /** {@link #restart()} with {@code jvmOptions} added to the drill's own, for this launch and the next ones. */
  void restart(List<String> jvmOptions) throws IOException {
    extraJvmOptions = List.copyOf(jvmOptions);
    if (process.isAlive()) {
      throw new IllegalStateException("Tomcat " + route + " is still running (pid " + pid() + ")");
    }
    process = launch();
  }

  private void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: " + output);
    }
  }

  @Override
  public void close() {
    Process current = process;
    if (current.isAlive()) {
      try {
        signal("CONT"); // a hung node must be able to die
      } catch (IOException | InterruptedException | IllegalStateException e) {
        // SIGKILL below ends it either way
      }
      current.destroyForcibly();
      try {
        current.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void copyResource(String resource, Path target) throws IOException {
    try (InputStream in = TomcatProcess.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("drill resource " + resource + " is missing from the classpath");
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
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
