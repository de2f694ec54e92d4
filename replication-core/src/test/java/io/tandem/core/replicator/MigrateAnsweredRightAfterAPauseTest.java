package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulation, seed 1631 of the nemesis's second generation: n3 owned a session and was paused; the membership
 * dropped it, and its buddy adopted the session at the next epoch. On waking, n3's transport ran a {@code Migrate}
 * queued during the pause before the pause watch looked at the clock, and n3 handed the session out at that same
 * epoch: two owners of one copy, neither knowing of the other. The answer notices a pause first, as every caller
 * about to rely on ownership does, and refuses a session not confirmed since.
 */
class MigrateAnsweredRightAfterAPauseTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void migrateHandledBeforeThePauseWatchLooked_refusesTheUnconfirmedSession() throws Exception {
    // A pause threshold of ten minutes: the watch looks once a minute, long after the ask below is answered.
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().pauseThreshold(Duration.ofMinutes(10)).build(),
        "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");

    cluster.freeze("n1", Duration.ofMinutes(11));
    Message answer = n3.transport.request(new NodeId("n1"), new Message.Migrate("s", new NodeId("n3"), 0))
        .get(5, TimeUnit.SECONDS);

    assertThat(answer).as("handed out by a node that had not noticed its pause").isInstanceOf(Message.Nack.class);
    assertThat(((Message.Nack) answer).refusal()).isEqualTo(Message.Nack.Refusal.UNCONFIRMED_HERE);
    assertThat(n1.engine.owns("s")).isTrue();
    assertThat(n1.engine.stats().pausesDetected()).isEqualTo(1);
  }
}
