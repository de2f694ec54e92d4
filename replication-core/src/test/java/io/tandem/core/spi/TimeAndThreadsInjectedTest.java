package io.tandem.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the inventory of docs/protocol.md ("Time and threads") true: replication-core's main code reads no clock of the
 * JVM's and starts no thread or timer of its own, except where the defaults of {@link EngineRuntime} live and where
 * the inventory lists it as work left for the simulation. A new one must be injected, or added to both lists.
 */
class TimeAndThreadsInjectedTest {
  private static final Path MAIN = Path.of("src/main/java");

  /** What reads the JVM's time, starts a thread or arms a timer outside the runtime. */
  private static final List<String> FORBIDDEN = List.of("System.nanoTime", "System::nanoTime",
      "System.currentTimeMillis", "System::currentTimeMillis", "Instant.now(", "Clock.system", "new Thread(",
      "Executors.", "ThreadPoolExecutor", "ForkJoinPool", "Timer(", "completeOnTimeout", "orTimeout",
      "delayedExecutor", "Thread.sleep", "LockSupport.park", "Async(");

  /** Where one is allowed, and why. */
  private static final Map<String, Set<String>> ALLOWED = Map.of(
      "io/tandem/core/spi/Ticker.java", Set.of("System::nanoTime"), // the default ticker
      "io/tandem/core/spi/ExecutorScheduler.java", Set.of("Executors.", "new Thread("), // the default lanes
      "io/tandem/core/spi/SharedDelayScheduler.java", Set.of("delayedExecutor"), // the default TIMEOUTS lane
      // The production waiter (Waiter.timerless): real-time waits and their sweeper thread; the simulation passes its own.
      "io/tandem/core/spi/TimerlessWaiter.java", Set.of("System.nanoTime", "LockSupport.park", "new Thread("),
      // Its public default, for the transport; the engine passes its ticker.
      "io/tandem/core/logging/RateLimitedLog.java", Set.of("System::nanoTime"),
      // runMaintenance (Maintenance.runNow): CompletableFuture.runAsync on the maintenance scheduler, for tests that
      // wait for a tick.
      "io/tandem/core/replicator/Maintenance.java", Set.of("Async("));

  @Test
  void mainCode_readsNoClockAndStartsNoThreadOfItsOwn_outsideTheRuntimesDefaults() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(file -> {
        String name = MAIN.relativize(file).toString().replace('\\', '/');
        List<String> lines = read(file);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          if (line.startsWith("*") || line.startsWith("/*") || line.startsWith("//")) {
            continue; // comments may name what the code must not do
          }
          for (String forbidden : FORBIDDEN) {
            if (line.contains(forbidden) && !ALLOWED.getOrDefault(name, Set.of()).contains(forbidden)) {
              found.add(name + ":" + (i + 1) + ": " + forbidden);
            }
          }
        }
      });
    }
    assertThat(found).isEmpty();
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
