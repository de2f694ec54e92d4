package io.tandem.benchmarks.replication;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A node JVM ({@link ReplicationNodeMain}) seen from the benchmark's main: commands on its standard input, answers
 * from its standard output (read by a daemon thread into a queue), its standard error in {@code node.log}.
 *
 * <p>Implementation notes: used by the benchmark's main thread only, apart from the reader thread, which owns the
 * process's output and hands lines over through {@code lines}.
 */
final class NodeProcess implements AutoCloseable {
  // Every node gets the same JVM: one processor, as the cap allows about that much; the serial collector; the opens
  // Tomcat's catalina.sh adds, since Kryo behaves differently with them.
  static final List<String> JVM_OPTIONS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC",
      "-XX:ActiveProcessorCount=1", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED", "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED");
  private static final String END = "\u0000end";

  private final String name;
  private final Process process;
  private final Writer commands;
  private final Path log;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private NodeProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.commands = process.outputWriter(StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readOutput, "tandem-bench-read-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code ReplicationNodeMain} with {@code arguments} on this JVM's class path, its logs in
   * {@code directory/node.log} and, with {@code flightRecording}, a JFR profile in {@code directory/node.jfr}.
   */
  static NodeProcess start(String name, List<String> arguments, Path directory, boolean flightRecording) throws IOException {
    Files.createDirectories(directory);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    if (flightRecording) {
      command.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
          + directory.resolve("node.jfr").toAbsolutePath());
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ReplicationNodeMain.class.getName());
    command.addAll(arguments);
    Path log = directory.resolve("node.log");
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    return new NodeProcess(name, process, log);
  }

  private void readOutput() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = reader.readLine()) != null; ) {
        if (line.startsWith(NodeLine.PREFIX)) {
          lines.add(line.substring(NodeLine.PREFIX.length()));
        }
      }
    } catch (IOException e) {
      // the process is gone; await() says so
    }
    lines.add(END);
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  Path log() {
    return log;
  }

  void send(String command) throws IOException {
    commands.write(command + "\n");
    commands.flush();
  }

  /** The next line, which must start with {@code word}; fails naming the node and the end of its log otherwise. */
  NodeLine await(String word, Duration timeout) throws IOException, InterruptedException {
    String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      throw new IOException(name + ": no " + word + " within " + timeout.toMillis() + " ms" + logTail());
    }
    if (line.equals(END)) {
      lines.add(END);
      throw new IOException(name + " exited before " + word + logTail());
    }
    NodeLine parsed = NodeLine.parse(line);
    if (!parsed.word().equals(word)) {
      throw new IOException(name + " answered '" + line + "' instead of " + word + logTail());
    }
    return parsed;
  }

  private String logTail() {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return "; the end of " + log + ":\n  " + String.join("\n  ", all.subList(Math.max(0, all.size() - 15), all.size()));
    } catch (IOException | RuntimeException e) {
      return " (see " + log + ")";
    }
  }

  /** Waits for the node to exit after STOP, then ends it if it has not. */
  @Override
  public void close() {
    try {
      commands.close(); // end of input stops a node that never got STOP
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
