package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionLogLinesTest {
  private static final String ID = "F0117DF0377827851388438094FF86B3";

  @Test
  void quotesTheLinesNamingTheExamplesSessions_thenTheRingsChanges_inTimeOrderAcrossNodes(@TempDir Path work) throws Exception {
    log(work, "n2", "27-Nov-2026 12:26:38.700 INFO [exec-1] io.tandem.core.replicator.Migrations.takeOverBackup Session [" + ID + "] promoted",
        "27-Nov-2026 12:26:38.100 INFO [t] io.tandem.core.replicator.RingTracker.followRing Node n2: buddy is now n3",
        "27-Nov-2026 12:26:38.800 INFO [t] io.tandem.shaded.com.hazelcast.Node " + ID + " not ours",
        "27-Nov-2026 12:26:38.900 INFO [t] org.apache.catalina.Other " + ID);
    log(work, "n3", "27-Nov-2026 12:26:38.650 INFO [exec-2] io.tandem.core.replicator.RemoteTakeover.install Session [" + ID + "] migrated in");

    List<String> lines = SessionLogLines.explaining(List.of(work.resolve("n2"), work.resolve("n3")),
        List.of("account 0: write 102 on n3 found seq -1 ...; sent with session " + ID + ".n2, then " + ID + ".n2"), 10);

    assertThat(lines).containsExactly(
        "n3: 12:26:38.650 INFO [exec-2] RemoteTakeover.install Session [" + ID + "] migrated in",
        "n2: 12:26:38.700 INFO [exec-1] Migrations.takeOverBackup Session [" + ID + "] promoted",
        "n2: 12:26:38.100 INFO [t] RingTracker.followRing Node n2: buddy is now n3");
  }

  @Test
  void quotesAtMostTheBound(@TempDir Path work) throws Exception {
    log(work, "n1", "12:00:00.001 INFO [t] io.tandem.core.replicator.RingTracker.a", "12:00:00.002 INFO [t] io.tandem.core.replicator.RingTracker.b");

    assertThat(SessionLogLines.explaining(List.of(work.resolve("n1")), List.of(), 1)).hasSize(1);
  }

  @Test
  void lastLines_areTheNewestOfEveryNode_inTimeOrder(@TempDir Path work) throws Exception {
    log(work, "n1", "12:00:00.001 INFO [t] io.tandem.core.replicator.RingTracker.a", "12:00:00.004 WARNING [t] io.tandem.core.replicator.OwnerWrites.b",
        "12:00:00.005 INFO [t] org.apache.catalina.Other not ours");
    log(work, "n2", "12:00:00.003 INFO [t] io.tandem.transport.grizzly.LossDetector.c");

    assertThat(SessionLogLines.last(List.of(work.resolve("n1"), work.resolve("n2")), 2))
        .containsExactly("n2: 12:00:00.003 INFO [t] LossDetector.c", "n1: 12:00:00.004 WARNING [t] OwnerWrites.b");
  }

  private static void log(Path work, String node, String... lines) throws Exception {
    Path logs = Files.createDirectories(work.resolve(node).resolve("logs"));
    Files.write(logs.resolve("catalina.2026-11-27.log"), List.of(lines));
  }
}
