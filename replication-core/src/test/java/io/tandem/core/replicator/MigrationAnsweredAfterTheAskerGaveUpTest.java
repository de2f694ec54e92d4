package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A member asked the owner for a session; the owner handed it over, let go of it and had its buddy drop its copy, but
 * its answer came after the asker's ack timeout, and the asker dropped it: the session existed nowhere any more. Every
 * later request was answered 503 ("exists by what a member said, but no member reports a copy") until the ids the
 * owner remembered as handed away expired, and then given a new, empty session. Found while looking into a flaky
 * migration test that failed only in a full run of the module.
 */
class MigrationAnsweredAfterTheAskerGaveUpTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();
  private EngineCluster cluster;

  @Test
  void handedOverAfterTheAskerGaveUp_isInstalledThere_andTheNextRequestFindsIt() throws Exception {
    cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300)).build(), "n1", "n2", "n3");
    cluster.network.honourRequestTimeouts(); // the asker's transport waits on for the answer, as Grizzly does
    AtomicBoolean slow = new AtomicBoolean(false);
    cluster.slowDown(Message.FullSession.class, slow::get, Duration.ofMillis(600));
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);

    slow.set(true);
    EngineCluster.Node n3 = cluster.node("n3");
    Acquisition first = n3.engine.acquire("s", "n1");

    assertThat(first.unavailable()).as("n1 answered after 300 ms").isPresent();
    slow.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> n3.engine.owns("s"));
    // The late install released n1's buddy's copy from the transport thread; until n2 answers, the session is served
    // nowhere (11.3.34), and the next request is answered 503: the one after finds it.
    Acquisition retried = await().atMost(Duration.ofSeconds(10)).until(() -> n3.engine.acquire("s", "n1"),
        a -> !a.unavailable().map(why -> why.contains("not yet answered the release")).orElse(false));
    assertThat(retried.snapshot()).as(retried.toString()).isPresent();
    assertThat(n3.decode(retried.snapshot().get())).containsEntry("seq", 5);
    assertThat(n1.engine.owns("s")).isFalse();
  }
}
