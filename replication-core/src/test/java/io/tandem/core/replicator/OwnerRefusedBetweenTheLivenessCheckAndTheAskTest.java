package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a session lost at its owner's buddy right after a kill ({@code
 * EngineOverGrizzlyDeathDetectionTest}, about one CI run in several): a request at the buddy found the owner live in
 * its view and so asked the owner rather than promote its backup ({@link Migrations#acquire}); the owner's redial was
 * refused in between, and the takeover, reading the view again, found the owner gone from it. Its one hop then had
 * nobody to ask (the owner was not in the view, and its successor is this node), every member it could ask said
 * nothing, and the answer was NOWHERE: a new, empty session in place of an acknowledged backup held right there.
 * The decision and the ask now use one view: the dead owner is asked, fails at once, and the backup is promoted.
 *
 * <p>The kill lands at each point where the buddy's request thread reads its ticker, in turn, from the first read
 * to the last; whichever step it falls between, the backup is taken over. Two nodes: n1 owns "s", n2 holds its copy.
 */
class OwnerRefusedBetweenTheLivenessCheckAndTheAskTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  /** Bounds the search, should the request read its ticker more often than any path does today. */
  private static final int MAX_READS = 200;

  /** A long ack timeout: the promotion must come from the failed ask, never from the ask giving up. */
  private static final ReplicationConfig CONFIG = ReplicationConfig.builder().ackTimeout(Duration.ofSeconds(2))
      .settleTimeout(Duration.ofSeconds(5)).maintenanceInterval(Duration.ofHours(1)).build();

  /** What a request at n2 for "s" came to, with n1 killed at the request thread's {@code killAt}th ticker read. */
  private record Run(Acquisition acquired, boolean killed, String attribute) {}

  private static Run killOwnerAtRead(int killAt) throws Exception {
    try (EngineCluster cluster = new EngineCluster(CONFIG, "n1", "n2")) {
      EngineCluster.Node n1 = cluster.node("n1");
      EngineCluster.Node n2 = cluster.node("n2");
      n1.create("s");
      assertThat(n1.request("s", (s, reads) -> s.setAttribute("user", "alice"))).isEqualTo(FlushOutcome.REPLICATED);
      await().atMost(AWAIT).until(() -> n2.backup("s").map(b -> "alice".equals(b.get("user"))).orElse(false));

      Thread requester = Thread.currentThread();
      AtomicInteger reads = new AtomicInteger();
      AtomicBoolean killed = new AtomicBoolean();
      cluster.onTickerRead("n2", () -> {
        // Only the request's own reads; set before the kill, whose own work may read the ticker on this thread.
        if (Thread.currentThread() == requester && !killed.get() && reads.incrementAndGet() == killAt) {
          killed.set(true);
          cluster.kill("n1"); // its connection closes and its host refuses: n2 suspects it, the view still lists it
        }
      });
      Acquisition acquired = n2.engine.acquire("s", "n1");
      cluster.onTickerRead("n2", () -> { });
      String attribute = acquired.snapshot().map(n2::decode).map(a -> String.valueOf(a.get("user"))).orElse(null);
      return new Run(acquired, killed.get(), attribute);
    }
  }

  @Test
  void acquire_ownerKilledAtAnyStepOfTheRequest_itsBuddyTakesTheBackupOver_neverNowhere() throws Exception {
    List<String> wrong = new ArrayList<>();
    int killAt = 1;
    for (; killAt <= MAX_READS; killAt++) {
      Run run = killOwnerAtRead(killAt);
      if (!run.killed()) {
        break; // the request read its ticker fewer times: every step was tried (this run took it from the live n1)
      }
      Acquisition acquired = run.acquired();
      boolean takenOver = acquired.unavailable().isEmpty()
          && acquired.snapshot().map(s -> s.epoch() == 2).orElse(false) && "alice".equals(run.attribute());
      if (!takenOver) {
        wrong.add("killed at read " + killAt + ": " + (acquired.equals(Acquisition.NOWHERE) ? "NOWHERE" : acquired));
      }
    }

    assertThat(killAt).as("the request reads its ticker, and not without end").isBetween(2, MAX_READS);
    assertThat(wrong).as("the acknowledged backup taken over at epoch 2, whenever the owner died").isEmpty();
  }
}
