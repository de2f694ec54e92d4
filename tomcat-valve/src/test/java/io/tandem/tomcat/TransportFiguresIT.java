package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The transport's figures on JMX, read as an operator reads them, after SYNC writes over real sockets: every write is
 * a request the owner sent and its buddy served, and the batching figures (frames per socket write, requests per
 * acknowledgement) add up.
 */
class TransportFiguresIT extends TomcatClusterIT {
  private static final List<String> FIGURES =
      List.of("RequestsSent", "RequestsServed", "FramesWritten", "SocketWrites", "CallerWrites", "AcksReceived");
  private static final int WRITES = 20;

  @Test
  void syncWrites_areCountedAsRequestsSentAndServed_andTheBatchFiguresAddUp() throws Exception {
    start(2, "MODIFIED_ATTRIBUTE");
    TomcatNode n1 = cluster.node(0);
    cluster.get(n1, "/set?name=user&value=ada");
    assertThat(cluster.sessionCookie()).endsWith(".n1");
    Map<String, Long> ownerBefore = figures("n1");
    Map<String, Long> buddyBefore = figures("n2");

    for (int i = 0; i < WRITES; i++) {
      cluster.get(n1, "/set?name=step&value=" + i);
    }

    Map<String, Long> owner = since(figures("n1"), ownerBefore);
    Map<String, Long> buddy = since(figures("n2"), buddyBefore);
    assertThat(owner.get("RequestsSent")).isGreaterThanOrEqualTo(WRITES);
    assertThat(buddy.get("RequestsServed")).isGreaterThanOrEqualTo(WRITES);
    // Each request was acknowledged by at least one cumulative ack, and no ack stands for nothing.
    assertThat(owner.get("AcksReceived")).isBetween(1L, owner.get("RequestsSent"));
    for (Map<String, Long> node : List.of(owner, buddy)) {
      assertThat(node.get("SocketWrites")).isPositive();
      assertThat(node.get("FramesWritten")).isGreaterThanOrEqualTo(node.get("SocketWrites"));
      assertThat(node.get("CallerWrites")).isBetween(0L, node.get("SocketWrites"));
    }
    // The buddy writes only acknowledgements here: at least one frame per socket write, never more than it served.
    assertThat(buddy.get("FramesWritten")).isLessThanOrEqualTo(buddy.get("RequestsServed"));
  }

  /** Issue 28: an operator in a rolling upgrade reads what each connection speaks. */
  @Test
  void protocolVersions_nameTheVersionsSpoken_thenWhatEachConnectedPeerSpeaks() throws Exception {
    start(2, "MODIFIED_ATTRIBUTE");
    cluster.get(cluster.node(0), "/set?name=user&value=ada");

    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    assertThat(jmx.getAttribute(new ObjectName("io.tandem:type=Replication,node=\"n1\",context=\"/\""), "ProtocolVersions"))
        .isEqualTo("5 to 6; n2=6");
    assertThat(jmx.getAttribute(new ObjectName("io.tandem:type=Replication,node=\"n2\",context=\"/\""), "ProtocolVersions"))
        .isEqualTo("5 to 6; n1=6");
  }

  private static Map<String, Long> figures(String node) throws Exception {
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("io.tandem:type=Replication,node=\"" + node + "\",context=\"/\"");
    Map<String, Long> figures = new HashMap<>();
    for (String figure : FIGURES) {
      figures.put(figure, (Long) jmx.getAttribute(name, figure));
    }
    return figures;
  }

  private static Map<String, Long> since(Map<String, Long> now, Map<String, Long> before) {
    Map<String, Long> delta = new HashMap<>();
    now.forEach((figure, value) -> delta.put(figure, value - before.get(figure)));
    return delta;
  }
}
