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
 * Review of 11.3.34 (docs/protocol.md): the holder's buddy may answer a release {@code REFUSED}, asking to retry (it
 * is letting go of its own copy, or holds the session unconfirmed after a pause); taken for an answer, the session
 * was served while that buddy's copy stayed. The release stays pending and is sent again by the maintenance tick.
 */
class ReleaseRefusedForNowTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void releaseAnsweredRefused_staysPending_untilAnsweredForGood() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofHours(1))
        .build(), "n1", "n2", "n3", "n4", "n5");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n4 (whose buddy is n5) migrates the session from n1; n2's first answer to n4's release says "retry".
    AtomicBoolean releaseSent = new AtomicBoolean();
    AtomicBoolean refused = new AtomicBoolean();
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.Invalidate release && release.sessionId().equals("s")
          && release.reason() == Message.InvalidateReason.RELEASED && release.epoch() == 1) {
        releaseSent.set(true);
      } else if (message instanceof Message.Ack ack && ack.epoch() == 1 && releaseSent.get()
          && refused.compareAndSet(false, true)) {
        return new Message.Nack(Message.Nack.Reason.REFUSED, 0, 0, "letting go of its copy a moment ago; retry");
      }
      return cluster.throughTheCodec(message);
    });
    Acquisition acquisition = n4.engine.acquire("s", "n1");
    assertThat(refused).isTrue();
    assertThat(acquisition.snapshot()).as("not served on a 'retry'").isEmpty();
    assertThat(n4.engine.owns("s")).isTrue();
    assertThat(n4.engine.admit("s")).isNotEqualTo(Admission.ADMITTED);

    n4.engine.runMaintenance(); // sent again, acknowledged
    await().atMost(Duration.ofSeconds(5)).until(() -> n4.engine.admit("s").equals(Admission.ADMITTED));
    assertThat(n2.engine.backupOf("s")).as("n2 let go of n1's copy").isEmpty();
  }
}
