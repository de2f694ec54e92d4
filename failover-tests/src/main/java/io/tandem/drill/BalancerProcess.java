package io.tandem.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A load balancer the drill runs as its own child process (HAProxy, Apache httpd): started with its output in a log,
 * ready once the drill's status page answers 200 through the balancer's port, and stopped by its PID together with
 * the workers it forked, also when it fails to start. What each balancer configures is its own class's business.
 *
 * <p>Implementation notes: owns its process; created and closed by the drill's thread, {@link #send} called by the
 * drill's client threads ({@link HttpExchange} is thread-safe).
 */
final class BalancerProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final int port;
  private final Path logs;
  private final HttpExchange http = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(8));

  private BalancerProcess(String name, Process process, int port, Path logs) {
    this.name = name;
    this.process = process;
    this.port = port;
    this.logs = logs;
  }

  /**
   * Runs {@code command} with its output in {@code output} and waits until it serves on {@code port}; a balancer
   * that exits or does not serve within {@code timeout} is stopped before the failure, naming {@code logs}.
   */
  static BalancerProcess start(String name, List<String> command, Path output, int port, Path logs, Duration timeout)
      throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    BalancerProcess balancer = new BalancerProcess(name, process, port, logs);
    try {
      balancer.awaitServing(timeout);
    } catch (RuntimeException | InterruptedException e) {
      balancer.close();
      throw e;
    }
    return balancer;
  }

  /** The first line {@code command} prints (a version banner), or empty when it cannot run or fails. */
  static Optional<String> firstLineOf(String... command) {
    try {
      Process probe = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!probe.waitFor(10, TimeUnit.SECONDS) || probe.exitValue() != 0) {
        return Optional.empty();
      }
      return Optional.of(output.lines().findFirst().orElse("").trim());
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private void awaitServing(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited at start; see " + logs);
      }
      if (send("/app/status.jsp", null, null).status() == 200) {
        return;
      }
      Thread.sleep(100); // the balancer binds and runs its first health checks; bounded by the deadline
    }
    throw new IllegalStateException(name + " did not serve within " + timeout + "; see " + logs);
  }

  Answer send(String pathAndQuery, Map<String, String> form, String sessionId) {
    return http.send("http://127.0.0.1:" + port, pathAndQuery, form, sessionId);
  }

  /** SIGTERM to the balancer, which stops its workers; if it does not exit, it and its workers are SIGKILLed. */
  @Override
  public void close() {
    List<ProcessHandle> workers = process.descendants().toList();
    process.destroy();
    try {
      if (process.waitFor(10, TimeUnit.SECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
    workers.forEach(ProcessHandle::destroyForcibly);
  }
}
