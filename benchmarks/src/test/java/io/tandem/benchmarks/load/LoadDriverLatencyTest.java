package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Coordinated omission: a stall must show in the latencies, whether the server or the driver stalled. Each user has
 * at most one request in flight, so a one-second stall touches about one request per user; with 20 users thinking 50 ms
 * that is about 20 of ~600 requests, over 1 %, so the p99 must see it.
 */
class LoadDriverLatencyTest {

  private static final int USERS = 20;
  private static final Duration STALL = Duration.ofSeconds(1);

  private static LoadProfile profile() {
    return LoadProfile.of(USERS)
        .withThinkTime(Duration.ofMillis(50), 0.10)
        .withTiming(Duration.ZERO, Duration.ofMillis(2500), Duration.ofSeconds(3));
  }

  /**
   * The server freezes for a second. With one connection per user every delayed request has already left, so even a
   * driver measuring from the actual send would see this stall; what this proves is that the stalled requests are
   * neither lost nor cut off but recorded at full length. The next test is the one a naive driver fails.
   */
  @Test
  void run_serverStallsOnce_p99AndMaxShowTheStall() throws Exception {
    try (SessionPageServer server = new SessionPageServer("n1").stallOnce(100, STALL)) {
      StepResult result = new LoadDriver().run(profile(), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(result.responseTime().p99()).as(result.toString()).isGreaterThanOrEqualTo(Duration.ofMillis(900));
      assertThat(result.responseTime().max()).isGreaterThanOrEqualTo(Duration.ofMillis(900));
    }
  }

  /**
   * The driver's loop freezes for a second while every user's next request falls due, and no request is in flight.
   * Measured from when the requests actually left, they would look fast; measured from when they were meant to leave,
   * they carry the second. The step is also marked invalid: the lateness was the driver's.
   */
  @Test
  void run_driverStallsWhileRequestsAreDue_latencyCountsFromTheIntendedTime_andTheStepIsInvalid() throws Exception {
    AtomicInteger responses = new AtomicInteger();
    ResponseListener freezeOnce = (user, status) -> {
      if (responses.incrementAndGet() == 200) {
        try {
          Thread.sleep(STALL.toMillis()); // the fault under test: the driver's own thread stops
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (SessionPageServer server = new SessionPageServer("n1")) {
      StepResult result = new LoadDriver(DriverSettings.DEFAULT, freezeOnce).run(profile(), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(result.responseTime().p99()).as(result.toString()).isGreaterThanOrEqualTo(Duration.ofMillis(900));
      assertThat(result.sendLag().max()).as("the delay was the driver's").isGreaterThanOrEqualTo(Duration.ofMillis(900));
      assertThat(result.valid()).isFalse();
      assertThat(result.invalidReasons()).anySatisfy(reason -> assertThat(reason).contains("the driver was late"));
    }
  }
}
