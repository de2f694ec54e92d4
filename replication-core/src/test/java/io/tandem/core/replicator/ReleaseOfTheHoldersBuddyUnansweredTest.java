package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Soak seed 171195 (docs/protocol.md 11.3.34): n2 migrated a session in from n4 and released n4's buddy n5; the
 * release took longer than the wait for it (a slow network), so n2 served the session; n4 was killed, n5 adopted its
 * copy at n2's epoch before the release arrived, and both owned the session: a login on n2 answered 200, and n5
 * served the abandoned id. A session migrated in is now served nowhere until the holder's buddy answered the release
 * of its copy; a lost release is sent again by the maintenance tick.
 */
class ReleaseOfTheHoldersBuddyUnansweredTest {
  @RegisterExtension final EngineClusters clusters = new EngineClusters();

  @Test
  void releaseLost_theSessionIsNotServed_untilTheHoldersBuddyAnswers() throws Exception {
    EngineCluster cluster = clusters.start(ReplicationConfig.builder().maintenanceInterval(Duration.ofMillis(100))
        .build(), "n1", "n2", "n3", "n4", "n5");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n4 = cluster.node("n4");
    cluster.ownedByN1WithItsCopyOnN2("s");

    // n4 (whose buddy is n5) migrates the session from n1; its release of n2's copy is lost, and so is every one
    // sent again until n1 has died and n2 adopted its backup.
    AtomicBoolean losing = new AtomicBoolean(true);
    cluster.loseReleasesOf("s", losing::get);
    Acquisition acquisition = n4.engine.acquire("s", "n1");
    assertThat(acquisition.snapshot()).as("not served while n2 may still adopt its copy at n4's epoch").isEmpty();
    assertThat(acquisition.unavailable()).isPresent();
    assertThat(n4.engine.owns("s")).isTrue();
    assertThat(n4.engine.admit("s")).isNotEqualTo(Admission.ADMITTED);

    cluster.crash("n1");
    await().atMost(Duration.ofSeconds(5)).until(() -> n2.engine.owns("s"));
    losing.set(false);

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(n4.engine.owns("s")).as("n2's answer to the release sent again fences n4's copy").isFalse());
    assertThat(n2.engine.owns("s")).isTrue();
    assertThat(n2.engine.promote("s").map(n2::decode)).hasValue(java.util.Map.of("seq", 5));
  }
}
