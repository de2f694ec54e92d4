package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A leaving node captures its sessions for the handoff, and a request still running there flushes a later version of
 * one to the buddy (answered 200) before the handoff arrives. The buddy used to drop its backup and adopt the handed
 * copy, one acknowledged write older (found reading the code after a rolling-restart loss in CI).
 */
class HandoffRacingALateFlushTest {
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void handoffCapturedBeforeALateFlush_adoptsTheAcknowledgedVersion() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2");
    EngineCluster.Node owner = cluster.node("n1");
    EngineCluster.Node buddy = cluster.node("n2");
    owner.create("s");
    assertThat(owner.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    await().atMost(Duration.ofSeconds(10)).until(() -> buddy.backup("s").isPresent());
    SessionSnapshot capturedForTheHandoff = buddy.engine.backupOf("s").orElseThrow(); // what the owner held then
    assertThat(owner.request("s", (s, reads) -> s.setAttribute("seq", 2))).isEqualTo(FlushOutcome.REPLICATED);

    Message answer = owner.transport.request(new NodeId("n2"),
        new Message.BulkTransfer(Message.BulkTransfer.Purpose.HANDOFF, List.of(capturedForTheHandoff))).get(5, TimeUnit.SECONDS);

    assertThat(answer).isInstanceOf(Message.Ack.class);
    assertThat(buddy.engine.owns("s")).isTrue();
    SessionSnapshot adopted = buddy.engine.acquire("s").snapshot().orElseThrow();
    assertThat(buddy.decode(adopted)).containsEntry("seq", 2);
  }
}
