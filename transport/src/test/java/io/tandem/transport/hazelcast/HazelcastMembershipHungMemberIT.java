package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A member that hangs (its process stopped, its sockets open) leaves the others' views within 5 s, by heartbeat
 * timeout alone: the case a crash test cannot show, since a crashed member's sockets close at once.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class HazelcastMembershipHungMemberIT {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");

  private final HazelcastMembershipFixture fixture = new HazelcastMembershipFixture(List.of(A, B));
  private Process other;

  @AfterEach
  void close() {
    try {
      if (other != null) {
        other.destroyForcibly();
      }
    } finally {
      fixture.close();
    }
  }

  @Test
  void hungMemberLeavesTheViewWithinFiveSeconds() throws Exception {
    Membership a = fixture.create(A, "test://a");
    a.start();
    other = startMember(fixture.config(B, "test://b"));
    await().atMost(Duration.ofSeconds(60)).until(() -> a.currentView().contains(B));

    long frozenAt = System.nanoTime();
    signal("STOP", other.pid());
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> !a.currentView().contains(B));
    Duration detection = Duration.ofNanos(System.nanoTime() - frozenAt);

    System.out.println("hung member left the survivor's view after " + detection.toMillis() + " ms");
    assertThat(detection).isLessThan(Duration.ofSeconds(5));
  }

  /**
   * docs/protocol.md 11.3.43: a member that hung past failure detection forms a cluster of its own and is merged back,
   * and Hazelcast gives one side's member a new UUID at the merge. Read as that member's run, the other side took it
   * for restarted (without its sessions) and adopted the copies it held of it, an ended session among them. The run
   * is the member's own attribute now, and a merge keeps it.
   */
  @Test
  void hungMemberMergedBackKeepsItsRun() throws Exception {
    Membership a = fixture.create(A, "test://a");
    a.start();
    other = startMember(fixture.config(B, "test://b"));
    await().atMost(Duration.ofSeconds(60)).until(() -> a.currentView().contains(B));
    long runOfA = a.currentView().member(A).orElseThrow().incarnation();
    long runOfB = a.currentView().member(B).orElseThrow().incarnation();

    signal("STOP", other.pid());
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> !a.currentView().contains(B));
    signal("CONT", other.pid());
    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(() -> a.currentView().contains(B));

    assertThat(a.currentView().member(A).orElseThrow().incarnation()).as("a's run after the merge").isEqualTo(runOfA);
    assertThat(a.currentView().member(B).orElseThrow().incarnation()).as("b's run after the merge").isEqualTo(runOfB);
  }

  private static Process startMember(HazelcastMembershipConfig config) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("-Dhazelcast.logging.type=jdk");
    String logging = System.getProperty("java.util.logging.config.file");
    if (logging != null) {
      command.add("-Djava.util.logging.config.file=" + logging);
    }
    command.add(MemberProcess.class.getName());
    command.add(config.clusterName());
    command.add(config.localNode().value());
    command.add(Integer.toString(config.port()));
    for (String member : ((MemberDiscovery.Members) config.discovery()).members()) {
      command.add(member.substring(member.lastIndexOf(':') + 1));
    }
    File log = File.createTempFile("tandem-member-" + config.localNode(), ".log");
    log.deleteOnExit();
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %s", signal, pid).isZero();
  }
}
