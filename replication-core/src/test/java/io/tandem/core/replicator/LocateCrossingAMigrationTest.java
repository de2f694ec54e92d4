package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 74073 (docs/protocol.md 11.3.24): n1 asked every member where a session was while n2 migrated it in from
 * its owner n4. n2 answered "none" (its migration was in flight) and n4, reached a moment later, "none" as well (it
 * had handed the session over, and its hand-over had ended): every member said "none", and n1 served an empty
 * session in place of one that had just been acknowledged on n2. A member that handed a session away within the
 * last SYNC wait answers that it exists ({@code UNCONFIRMED}), so the asker asks again rather than start anew.
 */
class LocateCrossingAMigrationTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void formerOwnerThatHandedTheSessionAwayAMomentAgo_answersThatItExists_notNone() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(n2.engine.acquire("s", "n1").snapshot()).isPresent();
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.stats().handoversUndecided() == 0);

    Message answer = cluster.node("n3").transport.request(new NodeId("n1"), new Message.Locate("s")).get(5, TimeUnit.SECONDS);
    assertThat(answer).isInstanceOf(Message.LocateReply.class);
    assertThat(((Message.LocateReply) answer).holding()).isEqualTo(Message.LocateReply.Holding.UNCONFIRMED);
  }

  /**
   * Soak seed 175377 (docs/protocol.md 11.3.35): that answer carried no epoch, and a former holder deciding its own
   * handover of the session (it had handed it here, unconfirmed) read it as nobody at or above its kept epoch and took
   * the session back beside the member it had gone on to. It carries the epoch the session was handed at.
   */
  @Test
  void formerOwnerThatHandedTheSessionAwayAMomentAgo_answersTheEpochItHandedItAt() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 5))).isEqualTo(FlushOutcome.REPLICATED);

    assertThat(n2.engine.acquire("s", "n1").snapshot().map(s -> s.epoch())).contains(2L);
    await().atMost(Duration.ofSeconds(10)).until(() -> n1.engine.stats().handoversUndecided() == 0);

    Message answer = cluster.node("n3").transport.request(new NodeId("n1"), new Message.Locate("s")).get(5, TimeUnit.SECONDS);
    assertThat(answer).isInstanceOfSatisfying(Message.LocateReply.class, reply -> {
      assertThat(reply.holding()).isEqualTo(Message.LocateReply.Holding.UNCONFIRMED);
      assertThat(reply.epoch()).as("the epoch n2 holds it at").isEqualTo(2);
    });
  }
}
