package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

class ManagerConfigTest {

  private static final int[] RECEIVERS = {24001, 24002};
  private static final int[] MEMBERSHIP = {25001, 25002};

  private static Element parse(String xml) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
  }

  @Test
  void everySetupGivesWellFormedConfigurationForBothNodes() throws Exception {
    for (Setup setup : Setup.all()) {
      for (int node = 0; node < 2; node++) {
        ManagerConfig config = ManagerConfig.of(setup, node, RECEIVERS, MEMBERSHIP);
        assertThat(config.managerElement().isEmpty() && config.clusterElement().isEmpty())
            .as("%s configures a manager somewhere", setup.name()).isFalse();
        if (!config.managerElement().isEmpty()) {
          assertThat(parse(config.managerElement()).getTagName()).isEqualTo("Manager");
        }
        if (!config.clusterElement().isEmpty()) {
          assertThat(parse(config.clusterElement()).getTagName()).isEqualTo("Cluster");
        }
      }
    }
  }

  @Test
  void tandemNodesNameTheirScopeModeAndEachOther() throws Exception {
    Element manager = parse(ManagerConfig.of(Setup.tandem("MODIFIED_SESSION", "ASYNC"), 1, RECEIVERS, MEMBERSHIP)
        .managerElement());

    assertThat(manager.getAttribute("className")).isEqualTo("io.tandem.tomcat.TandemManager");
    assertThat(manager.getAttribute("scope")).isEqualTo("MODIFIED_SESSION");
    assertThat(manager.getAttribute("mode")).isEqualTo("ASYNC");
    assertThat(manager.getAttribute("transportPort")).isEqualTo("24002");
    assertThat(manager.getAttribute("membershipPort")).isEqualTo("25002");
    assertThat(manager.getAttribute("members")).isEqualTo("127.0.0.1:25001,127.0.0.1:25002");
  }

  @Test
  void tomcatNodesShareTheMemberListAndBindTheirOwnReceiver() throws Exception {
    Element first = parse(ManagerConfig.of(Setup.BACKUP_MANAGER, 0, RECEIVERS, MEMBERSHIP).clusterElement());
    Element second = parse(ManagerConfig.of(Setup.BACKUP_MANAGER, 1, RECEIVERS, MEMBERSHIP).clusterElement());

    assertThat(((Element) first.getElementsByTagName("Manager").item(0)).getAttribute("className"))
        .isEqualTo("org.apache.catalina.ha.session.BackupManager");
    assertThat(((Element) first.getElementsByTagName("Receiver").item(0)).getAttribute("port")).isEqualTo("24001");
    assertThat(((Element) second.getElementsByTagName("Receiver").item(0)).getAttribute("port")).isEqualTo("24002");
    assertThat(((Element) second.getElementsByTagName("Receiver").item(0)).getAttribute("autoBind")).isEqualTo("1");
    assertThat(first.getElementsByTagName("Member").getLength()).isEqualTo(2);
    assertThat(first.getElementsByTagName("Membership").item(0).getTextContent())
        .isEqualTo(second.getElementsByTagName("Membership").item(0).getTextContent());
    Element delta = parse(ManagerConfig.of(Setup.DELTA_MANAGER, 0, RECEIVERS, MEMBERSHIP).clusterElement());
    assertThat(((Element) delta.getElementsByTagName("Manager").item(0)).getAttribute("className"))
        .isEqualTo("org.apache.catalina.ha.session.DeltaManager");
  }

  @Test
  void deltaManagerSync_sameManagerAsTheDefault_clusterSendsWithSynchronousAcks() throws Exception {
    for (int node = 0; node < 2; node++) {
      Element async = parse(ManagerConfig.of(Setup.DELTA_MANAGER, node, RECEIVERS, MEMBERSHIP).clusterElement());
      Element sync = parse(ManagerConfig.of(Setup.named("tomcat-delta-sync"), node, RECEIVERS, MEMBERSHIP).clusterElement());

      assertThat(sync.getAttribute("className")).isEqualTo("org.apache.catalina.ha.tcp.SimpleTcpCluster");
      // Tribes' Channel: SEND_OPTIONS_USE_ACK 2 | SEND_OPTIONS_SYNCHRONIZED_ACK 4; the default is ASYNCHRONOUS, 8.
      assertThat(sync.getAttribute("channelSendOptions")).isEqualTo("6");
      assertThat(async.hasAttribute("channelSendOptions")).as("the default: Tomcat's asynchronous sends").isFalse();
      Element syncManager = (Element) sync.getElementsByTagName("Manager").item(0);
      Element asyncManager = (Element) async.getElementsByTagName("Manager").item(0);
      assertThat(syncManager.getAttribute("className")).isEqualTo("org.apache.catalina.ha.session.DeltaManager");
      for (String attribute : List.of("className", "expireSessionsOnShutdown", "notifyListenersOnReplication",
          "processExpiresFrequency")) {
        assertThat(syncManager.getAttribute(attribute)).as(attribute).isEqualTo(asyncManager.getAttribute(attribute));
      }
      assertThat(((Element) sync.getElementsByTagName("Receiver").item(0)).getAttribute("port"))
          .isEqualTo(Integer.toString(RECEIVERS[node]));
    }
    assertThat(Setup.all()).contains(Setup.DELTA_MANAGER, Setup.DELTA_MANAGER_SYNC);
    assertThat(Setup.DELTA_MANAGER_SYNC.replicates()).isTrue();
    assertThat(Setup.DELTA_MANAGER_SYNC.tomcatCluster()).isTrue();
    assertThat(Setup.DELTA_MANAGER_SYNC.label()).isEqualTo("Tomcat DeltaManager, synchronous acks");
    assertThat(Setup.DELTA_MANAGER.label()).isEqualTo("Tomcat DeltaManager, asynchronous (default)");
  }

  @Test
  void theFloorIsTheControlsManagerWithTheWaitValve_namedOnlyOnRequest() throws Exception {
    ManagerConfig config = ManagerConfig.of(Setup.named("ack-wait-floor"), 0, RECEIVERS, MEMBERSHIP);
    Element context = parse("<Context>" + config.managerElement() + "</Context>");

    assertThat(((Element) context.getElementsByTagName("Manager").item(0)).getAttribute("className"))
        .isEqualTo("org.apache.catalina.session.StandardManager");
    assertThat(((Element) context.getElementsByTagName("Valve").item(0)).getAttribute("className"))
        .isEqualTo("io.tandem.benchmarks.floor.AckWaitFloorValve");
    assertThat(config.floorValve()).isTrue();
    assertThat(config.clusterElement()).isEmpty();
    assertThat(Setup.ACK_WAIT_FLOOR.replicates()).isFalse();
    assertThat(Setup.all()).doesNotContain(Setup.ACK_WAIT_FLOOR);
    assertThat(Setup.all()).allSatisfy(setup -> assertThat(ManagerConfig.of(setup, 0, RECEIVERS, MEMBERSHIP).floorValve())
        .as(setup.name()).isFalse());
  }

  @Test
  void setupNamesAreStableAndUnknownOnesAreRefusedWithTheList() {
    assertThat(Setup.all()).extracting(Setup::name).containsExactly("no-replication", "tandem-session-sync",
        "tandem-session-async", "tandem-modified-session-sync", "tandem-modified-session-async",
        "tandem-modified-attribute-sync", "tandem-modified-attribute-async", "tomcat-backup", "tomcat-delta",
        "tomcat-delta-sync");
    assertThatThrownBy(() -> Setup.named("tandem-everything")).hasMessageContaining("unknown setup 'tandem-everything'")
        .hasMessageContaining("tomcat-delta");
    assertThatThrownBy(() -> Setup.tandem("EVERYTHING", "SYNC")).hasMessageContaining("scope EVERYTHING");
  }
}
