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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One node of a real Apache Tomcat distribution, as an operator installs Tandem: its own {@code CATALINA_BASE}
 * with the drop-in jar in {@code lib/} and a web application whose {@code META-INF/context.xml} names the Manager.
 * Runs as a child process the drill started, which it can SIGKILL, SIGSTOP and SIGCONT by its PID.
 */
final class TomcatProcess implements AutoCloseable {
  final String route;
  final int httpPort;
  final Path base;
  private final Process process;

  TomcatProcess(Path catalinaHome, Path workDir, Path dropinJar, String route, int httpPort, String managerAttributes) throws IOException {
    this.route = route;
    this.httpPort = httpPort;
    this.base = Files.createDirectories(workDir.resolve(route));
    for (String dir : new String[] {"logs", "temp", "work", "lib", "webapps/app/META-INF"}) {
      Files.createDirectories(base.resolve(dir));
    }
    copyTree(catalinaHome.resolve("conf"), base.resolve("conf"));
    Path serverXml = base.resolve("conf/server.xml");
    String server = Files.readString(serverXml, StandardCharsets.UTF_8)
        .replace("<Server port=\"8005\"", "<Server port=\"-1\"")
        .replace("port=\"8080\"", "port=\"" + httpPort + "\"")
        .replace("<Engine name=\"Catalina\" defaultHost=\"localhost\">", "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + route + "\">");
    Files.writeString(serverXml, server, StandardCharsets.UTF_8);
    Files.copy(dropinJar, base.resolve("lib/tandem-dropin.jar"), StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(base.resolve("webapps/app/META-INF/context.xml"),
        "<Context>\n  <Manager className=\"io.tandem.tomcat.TandemManager\" " + managerAttributes + "/>\n</Context>\n", StandardCharsets.UTF_8);
    try (InputStream jsp = TomcatProcess.class.getResourceAsStream("/drill-webapp/session.jsp")) {
      Files.copy(jsp, base.resolve("webapps/app/session.jsp"), StandardCopyOption.REPLACE_EXISTING);
    }
    ProcessBuilder builder = new ProcessBuilder("sh", catalinaHome.resolve("bin/catalina.sh").toString(), "run")
        .redirectErrorStream(true)
        .redirectOutput(base.resolve("logs/console.log").toFile());
    Map<String, String> env = builder.environment();
    env.put("CATALINA_HOME", catalinaHome.toString());
    env.put("CATALINA_BASE", base.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("CATALINA_OPTS", "-Xmx384m -XX:+UseSerialGC");
    env.remove("CATALINA_PID");
    this.process = builder.start();
  }

  /** Waits until the web application answers. */
  void awaitReady(Duration timeout) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("Tomcat " + route + " exited; see " + base.resolve("logs/console.log"));
      }
      try {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url("/app/session.jsp"))).build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      process.waitFor(250, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("Tomcat " + route + " did not serve the application within " + timeout + "; see " + base.resolve("logs"));
  }

  /** What Tomcat printed so far (its console, where Tandem's JULI logging goes too). */
  String log() throws IOException {
    return Files.readString(base.resolve("logs/console.log"), StandardCharsets.ISO_8859_1);
  }

  String url(String path) {
    return "http://localhost:" + httpPort + path;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: the JVM gets no chance to hand anything over. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
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
