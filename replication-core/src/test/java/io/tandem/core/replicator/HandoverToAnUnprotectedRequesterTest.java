package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 275973 (docs/protocol.md 11.3.38): n2 migrated a session in from n5, released n5's buddy n1 (which dropped
 * its copy; the answer was lost), and its state transfer to its own buddy n3 was slow. n5, deciding its handover by
 * asking every member, heard n2 answer that it owned the session and let go of the copy it kept; n2 crashed before n3
 * had the session, and every write acknowledged before the hand-out was lost. The holder keeps the copy it handed out
 * until a buddy of the requester holds it, or the requester is gone (then it takes the session back).
 */
class HandoverToAnUnprotectedRequesterTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void requesterOwningTheSessionUnprotected_isNotLetGoOf_andItsDeathLosesNothing() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(50))
        .ackTimeout(Duration.ofMillis(300)).settleTimeout(Duration.ofMillis(200)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n3's buddy n4 is not sent the session while the test holds it back; nobody shows n1 the session is protected.
    AtomicBoolean protectionHeldBack = new AtomicBoolean(true);
    AtomicInteger locates = new AtomicInteger();
    cluster.network.setWireHook(message -> {
      if (protectionHeldBack.get() && message instanceof Message.BulkTransfer bulk
          && bulk.purpose() == Message.BulkTransfer.Purpose.BACKUP) {
        throw new IllegalStateException("n3's state transfer is slow");
      }
      if (message instanceof Message.Locate locate && locate.sessionId().equals("s")) {
        locates.incrementAndGet();
      }
      return cluster.throughTheCodec(message);
    });
    n3.engine.acquire("s", "n1");
    assertThat(n3.engine.owns("s")).isTrue();
    assertThat(cluster.node("n2").engine.backupOf("s")).as("n3 released n1's buddy's copy").isEmpty();

    // n1 decides its handover (it waited longer than any requester waits): n3 answers that it owns the session.
    await().atMost(Duration.ofSeconds(5)).until(() -> locates.get() >= 3);
    Thread.sleep(300); // its answers are in: decided
    cluster.crash("n3");

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(n1.engine.owns("s")).as("n1 kept the copy it handed out, and takes it back").isTrue());
    assertThat(n1.engine.promote("s").map(n1::decode)).hasValue(Map.of("seq", 5));
  }
}
