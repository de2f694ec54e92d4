package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/protocol.md 8.5: state transfer waited for the buddy's answer only the transport's {@code ackTimeout}, where a
 * SYNC write waits {@code ackTimeout + settleTimeout}; a new buddy that took longer than that to apply a batch had it
 * failed, marked unprotected and sent again, while it applied the first one all the same.
 */
class StateTransferToASlowBuddyTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void batchTheNewBuddyAnswersAfterTheAckTimeout_butWithinTheSettleTimeout_protectsItsSessions_sentOnce() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofSeconds(2)).build(), "n1", "n2", "n3");
    cluster.network.honourRequestTimeouts(); // as Grizzly: the reply may take as long as the request allows
    AtomicBoolean slow = new AtomicBoolean(false);
    // Past the ack timeout, well within ack + settle.
    AtomicInteger batches = cluster.slowDown(Message.BulkTransfer.class, slow::get, Duration.ofMillis(700));
    EngineCluster.Node n1 = cluster.node("n1");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);
    long failuresBefore = n1.engine.stats().sendFailures();

    slow.set(true);
    String killed = n1.engine.buddy().orElseThrow().value();
    cluster.kill(killed); // the next member becomes n1's buddy and is sent s in a batch

    await().atMost(Duration.ofSeconds(15)).until(() -> n1.engine.sessionsWithoutBackup() == 0 && n1.engine.buddy().filter(b -> !b.value().equals(killed)).isPresent());
    assertThat(n1.engine.stats().sendFailures()).as("no batch timed out").isEqualTo(failuresBefore);
    assertThat(batches.get()).as("sent once").isEqualTo(1);
  }
}
