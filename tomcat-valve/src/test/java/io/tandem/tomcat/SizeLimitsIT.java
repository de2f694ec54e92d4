package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * {@code maxSessionSize} and {@code maxBackupBytes} set on the {@code <Manager>}, on real embedded Tomcats: the write
 * that would make a session too large is a 500 that says so, and a buddy with no room makes a write a 503; both show on
 * JMX.
 */
class SizeLimitsIT extends TomcatClusterIT {

  @Test
  void writeThatMakesTheSessionTooLarge_isAnswered500NamingTheSessionItsSizeAndTheLimit() throws Exception {
    start(2, "MODIFIED_ATTRIBUTE", "maxSessionSize=\"64KiB\"");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/setobj?name=note&kind=chars&value=1000");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.manager().engine().backupOf(base).isPresent());

    HttpResponse<String> tooLarge = cluster.send(n1, "/setobj?name=note&kind=chars&value=100000");

    assertThat(tooLarge.statusCode()).isEqualTo(500);
    assertThat(tooLarge.body()).contains("session [" + base + "] would be").contains("over maxSessionSize of 65536 bytes")
        .contains("[note]");
    assertThat(n2.manager().engine().backupOf(base).orElseThrow().attributes()).doesNotContainKey("note");
    assertThat(attribute(n1, "SessionsTooLarge")).isEqualTo(1L);
    assertThat(n1.manager().responses().notReplicable.sum()).isEqualTo(1);
  }

  @Test
  void buddyWithoutRoom_writeIsAnswered503_andJmxShowsTheBoundAndTheRefusals() throws Exception {
    start(2, "MODIFIED_ATTRIBUTE", "maxBackupBytes=\"64KiB\"");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/setobj?name=a&kind=chars&value=40000");

    HttpResponse<String> refused = cluster.send(n1, "/setobj?name=b&kind=chars&value=30000");

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After")).contains("1");
    assertThat(attribute(n1, "BackupRefusalsFull")).isNotEqualTo(0L);
    assertThat(attribute(n2, "BackupStoreRefusals")).isNotEqualTo(0L);
    assertThat(attribute(n2, "MaxBackupBytes")).isEqualTo(65536L);
    assertThat((Long) attribute(n2, "BackupBytes")).isLessThanOrEqualTo(65536L);
  }

  private static Object attribute(TomcatNode node, String name) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    String nodeId = node.manager().engine().localNode().value();
    for (ObjectName found : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
      if (ObjectName.unquote(found.getKeyProperty("node")).equals(nodeId)) {
        return server.getAttribute(found, name);
      }
    }
    throw new AssertionError("no Replication MBean for node " + nodeId);
  }
}
