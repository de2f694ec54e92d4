package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three nodes as separate JVMs on loopback. One is killed with SIGKILL; the other two adopt and re-protect until
 * every session has two copies again.
 */
class ProcessKillIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private final List<NodeProcess> processes = new ArrayList<>();

  @AfterEach
  void stop() {
    for (NodeProcess p : processes) {
      p.close();
    }
  }

  @Test
  void sigkillOfOneNode_everySessionHasTwoCopiesAgain() throws Exception {
    Path logs = Files.createDirectories(Path.of("target", "process-kill-it"));
    String cluster = "kill-" + System.nanoTime();
    int[] hz = {ClusterNode.freePort(), ClusterNode.freePort(), ClusterNode.freePort()};
    String join = "127.0.0.1:" + hz[0] + ",127.0.0.1:" + hz[1] + ",127.0.0.1:" + hz[2];
    for (int i = 0; i < 3; i++) {
      String name = "n" + (i + 1);
      processes.add(new NodeProcess(name, logs.resolve(name + ".log"), cluster, name,
          String.valueOf(ClusterNode.freePort()), String.valueOf(hz[i]), join));
    }
    for (NodeProcess p : processes) {
      p.awaitStarted(90);
    }
    NodeProcess n1 = processes.get(0);
    NodeProcess n2 = processes.get(1);
    NodeProcess n3 = processes.get(2);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() ->
        n1.command("stats").endsWith("buddy=n2") && n2.command("stats").endsWith("buddy=n3") && n3.command("stats").endsWith("buddy=n1"));

    for (int s = 0; s < 5; s++) {
      assertThat(n1.command("set a" + s + " user alice" + s)).isEqualTo("REPLICATED");
      assertThat(n2.command("set b" + s + " user bob" + s)).isEqualTo("REPLICATED");
    }
    assertThat(n3.command("backup b2")).isEqualTo("user=bob2");

    n2.kill();

    await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
      assertThat(n1.command("stats")).isEqualTo("owned=5 unprotected=0 backups=5 buddy=n3");
      assertThat(n3.command("stats")).isEqualTo("owned=5 unprotected=0 backups=5 buddy=n1");
    });
    for (int s = 0; s < 5; s++) {
      assertThat(n3.command("backup a" + s)).isEqualTo("user=alice" + s);
      assertThat(n3.command("owns b" + s)).isEqualTo("true");
      assertThat(n1.command("backup b" + s)).isEqualTo("user=bob" + s);
    }
  }
}
