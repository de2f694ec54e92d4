package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Failures are counted by kind, never thrown, and never keep a step from ending on time. */
class LoadDriverErrorTest {

  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private static LoadProfile quick(int users) {
    return LoadProfile.of(users)
        .withThinkTime(Duration.ofMillis(50), 0.10)
        .withTiming(Duration.ZERO, WINDOW, TIMEOUT);
  }

  @Test
  void run_refusingFailingSilentAndGarbageTargets_countsEachKind_andEndsOnTime() throws Exception {
    try (SessionPageServer failing = new SessionPageServer("n1").answering(500);
        ScriptedServer silent = new ScriptedServer(n -> ScriptedServer.Reply.silence());
        ScriptedServer garbage = new ScriptedServer(n -> ScriptedServer.Reply.of("SSH-2.0-OpenSSH_9.2\r\n\r\n"))) {
      List<Target> targets = List.of(refusingTarget(), failing.target(), silent.target(), garbage.target());

      long started = System.nanoTime();
      StepResult result = new LoadDriver().run(quick(8), targets);
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(result.successes()).as(result.toString()).isZero();
      assertThat(result.requests()).isEqualTo(result.errorCount());
      assertThat(result.errors(ErrorKind.CONNECT)).isPositive();
      assertThat(result.errors(ErrorKind.STATUS)).isPositive();
      assertThat(result.errors(ErrorKind.TIMEOUT)).isPositive();
      assertThat(result.errors(ErrorKind.MALFORMED)).isPositive();
      assertThat(result.errors(ErrorKind.CLOSED)).isZero();
      assertThat(result.responseTime().count()).as("failures are not latencies").isZero();
      // Bounded by construction: window + timeout + a 200 ms grace; the rest is slack for a busy machine.
      assertThat(took).isLessThan(WINDOW.plus(TIMEOUT).plusSeconds(2));
    }
  }

  @Test
  void run_keepAliveRace_resendsOnceOnANewConnection_andCountsNoError() throws Exception {
    // Each connection answers one request, then drops the next unanswered, as a server closing an idle connection
    // just as the request arrives does.
    try (ScriptedServer server = new ScriptedServer(
        n -> n == 1 ? ScriptedServer.Reply.of(ScriptedServer.OK) : ScriptedServer.Reply.closing(null))) {
      StepResult result = new LoadDriver().run(quick(3), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(result.successes()).isGreaterThan(3 * 5);
      assertThat(result.connectionsOpened()).isEqualTo(result.successes());
      assertThat(server.requests()).isEqualTo(2 * server.accepted() - 3);
    }
  }

  @Test
  void run_serverDropsEveryRequest_countsClosed_withoutRetryingAFreshConnection() throws Exception {
    try (ScriptedServer server = new ScriptedServer(n -> ScriptedServer.Reply.closing(null))) {
      StepResult result = new LoadDriver().run(quick(3), List.of(server.target()));

      assertThat(result.errors(ErrorKind.CLOSED)).as(result.toString()).isEqualTo(result.requests()).isPositive();
      assertThat(server.requests()).isEqualTo(server.accepted()).isEqualTo((int) result.requests());
    }
  }

  /** A loopback port nobody listens on: bound, then closed, so connecting is refused at once. */
  private static Target refusingTarget() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new Target("127.0.0.1", socket.getLocalPort(), "/app/page");
    }
  }
}
