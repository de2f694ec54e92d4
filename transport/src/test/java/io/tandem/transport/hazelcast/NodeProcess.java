package io.tandem.transport.hazelcast;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link ClusterNodeMain} in a child JVM that this test started, and can SIGKILL by its PID. */
final class NodeProcess implements AutoCloseable {
  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
  final String name;

  NodeProcess(String name, Path log, String... args) throws IOException {
    this.name = name;
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-Dhazelcast.logging.type=jdk",
        "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), ClusterNodeMain.class.getName()));
    command.addAll(List.of(args));
    this.process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith("> ")) {
            answers.add(line.substring(2));
          }
        }
      } catch (IOException e) {
        // the process died; commands will time out
      }
    }, "node-process-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /** Waits for the node's "started" line. */
  void awaitStarted(long seconds) throws InterruptedException {
    String first = answers.poll(seconds, TimeUnit.SECONDS);
    if (first == null || !first.startsWith("started")) {
      throw new IllegalStateException(name + " did not start: " + first);
    }
  }

  synchronized String command(String line) throws IOException, InterruptedException {
    stdin.write(line + "\n");
    stdin.flush();
    String answer = answers.poll(30, TimeUnit.SECONDS);
    if (answer == null) {
      throw new IllegalStateException(name + " did not answer '" + line + "'");
    }
    return answer;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: the JVM gets no chance to say goodbye. */
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
}
