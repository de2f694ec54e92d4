package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three nodes (n1 → n2 → n3 → n1). A request reaches n3, which holds neither the session nor its backup: n3 asks
 * the members, migrates the session in from its owner, serves it, and re-routes the cookie to itself.
 */
class ThreeNodeMigrationIT extends TomcatClusterIT {

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void requestOnANodeWithoutAnyCopy_migratesTheSessionIn(String scope) throws Exception {
    start(3, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n3 = cluster.node(2);
    cluster.get(n1, "/set?name=user&value=dora");
    cluster.get(n1, "/append?value=hat");
    assertThat(cluster.sessionCookie()).endsWith(".n1");

    assertThat(cluster.get(n3, "/list")).isEqualTo("{list=[hat], user=dora}");
    assertThat(cluster.sessionCookie()).endsWith(".n3");
    cluster.get(n3, "/append?value=scarf");

    await().atMost(Duration.ofSeconds(10)).until(() -> n1.manager().findSessions().length == 0);
    assertThat(cluster.get(n3, "/list")).isEqualTo("{list=[hat, scarf], user=dora}");
    assertThat(n3.manager().getReplicationStats().sessionsMigratedIn()).isEqualTo(1);
    javax.management.MBeanServer jmx = java.lang.management.ManagementFactory.getPlatformMBeanServer();
    javax.management.ObjectName figures = new javax.management.ObjectName("io.tandem:type=Replication,node=\"n3\",context=\"/\"");
    assertThat(jmx.getAttribute(figures, "SessionsMigratedIn")).isEqualTo(1L);
    await().atMost(Duration.ofSeconds(10)).until(() -> jmx.getAttribute(figures, "SessionsWithoutBackup").equals(0));
    assertThat((Long) jmx.getAttribute(figures, "ReplicationLatencyP99Micros")).isPositive();
    assertThat(jmx.getAttribute(figures, "Scope")).isEqualTo(scope);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void joiningNode_receivesTheBackupsItNowGuards_andTheFormerBuddyLetsThemGo(String scope) throws Exception {
    // n1 and n3 run; n2, configured in the same cluster, joins later and lands between them in the ring.
    start(3, 1, scope, "");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n3 = cluster.start(2);
    await().atMost(Duration.ofSeconds(60)).until(() -> n1.manager().engine().buddy().map(b -> b.value()).orElse("").equals("n3"));
    cluster.get(n1, "/set?name=user&value=ivan");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    await().atMost(Duration.ofSeconds(10)).until(() -> n3.manager().engine().backupOf(base).isPresent());

    TomcatNode n2 = cluster.start(1);

    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(n1.manager().engine().buddy().map(b -> b.value())).contains("n2");
      assertThat(n2.manager().engine().backupOf(base)).isPresent();
      assertThat(n3.manager().engine().backupOf(base)).isEmpty();
      assertThat(n1.manager().getSessionsWithoutBackup()).isZero();
    });
  }
}
