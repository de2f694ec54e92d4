package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.wire.Message;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seeds 153020 and 130823 (docs/protocol.md 11.3.30): a login on an owner the buddy's view had dropped. The
 * buddy adopted the pre-login session at the next epoch; when its view listed the owner again, it stored the copy
 * under the new id and answered the end of the old one {@code STALE_EPOCH}, which nobody read: the login was answered
 * 200, and the abandoned id was served by the buddy. A flush that protected a session anew now waits for the buddy's
 * answers to the ends of its former ids, and a buddy that holds one at a higher epoch fences it: the login is unknown.
 */
class LoginWhileTheBuddyOwnsThePreLoginIdTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void loginWhoseOldIdTheBuddyOwnsAtAHigherEpoch_isNotAnsweredReplicated() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .settleTimeout(Duration.ofMillis(700)).build(), "n1", "n2", "n3");
    EngineCluster.Node n1 = cluster.node("n1");
    EngineCluster.Node n2 = cluster.node("n2");
    n1.create("s");
    assertThat(n1.request("s", (s, reads) -> s.setAttribute("seq", 1))).isEqualTo(FlushOutcome.REPLICATED);
    assertThat(n2.engine.backupOf("s")).isPresent();

    // The id change never reaches n2 (as to a buddy whose view dropped n1): the session is sent again in full under
    // its new id. Meanwhile n2 took the pre-login session over at the next epoch.
    assertThat(n2.engine.promote("s")).isPresent();
    assertThat(n1.engine.owns("s")).as("n1 has not heard of it").isTrue();
    cluster.network.setWireHook(message -> {
      if (message instanceof Message.IdChange) {
        throw new IllegalStateException("the id change is lost");
      }
      return cluster.throughTheCodec(message);
    });
    FlushOutcome login = n1.engine.changeId("s", "s2");

    assertThat(login).as("the old id lives on n2 at a higher epoch").isIn(FlushOutcome.FENCED, FlushOutcome.UNCONFIRMED);
    assertThat(n1.engine.owns("s2")).isFalse();
  }
}
