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
 * The parallel-requests drill through HAProxy (twelfth session, 16 acknowledged writes in a session of their own):
 * the owner was killed; a request on its buddy asked every member where the session was while a parallel request on
 * a third node had that buddy hand it its backup. The third node answered "none" (its migration was in flight), the
 * copy had left the buddy, and the buddy took "nowhere" for an answer: Tomcat gave the application a new, empty
 * session and the tab wrote into it from then on. A backup handed out a moment ago is on its way, as an owned session
 * handed out is (docs/protocol.md 11.3.24, 11.3.51): the holder's own requests are told to retry, and a member asking
 * it where the session is hears that it exists.
 */
class BackupHandedOutWhileItsHolderAskedTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void holderThatHandedItsBackupOutAMomentAgo_answersThatItExists_notNone() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3", "n4");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n3 = cluster.node("n3");
    cluster.ownedByN1WithItsCopyOnN2("s");
    cluster.kill("n1");
    Thread.sleep(300); // n2 finds n1 gone for replication; the view still lists it

    assertThat(n3.engine.acquire("s", "n1").snapshot()).as("n3 takes n2's backup over").isPresent();
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.engine.stats().handoversUndecided() == 0);
    assertThat(n2.engine.backupOf("s")).as("n3's buddy is n4: n2 holds nothing of it now").isEmpty();

    Message answer = cluster.node("n4").transport.request(new NodeId("n2"), new Message.Locate("s")).get(5, TimeUnit.SECONDS);
    assertThat(answer).isInstanceOfSatisfying(Message.LocateReply.class, reply -> {
      assertThat(reply.holding()).as("handed to n3 a moment ago: it exists").isEqualTo(Message.LocateReply.Holding.UNCONFIRMED);
      assertThat(reply.epoch()).as("the epoch n3 holds it at").isEqualTo(2);
    });
  }
}
