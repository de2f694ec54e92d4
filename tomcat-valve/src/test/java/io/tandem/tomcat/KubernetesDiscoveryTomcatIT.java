package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code discovery="kubernetes"} from a real {@code context.xml} to a replicated session: two embedded Tomcat nodes
 * configured as the pods of a StatefulSet would be (the same membership port, each its own address, a headless
 * Service's DNS name) find each other through Hazelcast's DNS lookup and replicate. The name is {@code localhost}, which this
 * machine resolves to 127.0.0.1, where n1 listens; n2 listens on 127.0.0.2 and can only find n1 through the lookup
 * (see {@code KubernetesDiscoveryIT} in the transport module for why n1 starts first). docs/tomcat.md's Kubernetes
 * example uses these attributes.
 */
class KubernetesDiscoveryTomcatIT extends TomcatClusterIT {

  @Test
  void dnsDiscovery_twoNodes_formOneClusterAndTheSessionSurvivesTheFirst() throws Exception {
    String clusterName = "k8s-it-" + System.nanoTime();
    int membershipPort = TomcatNode.freePort();
    List<String> attributes = new ArrayList<>();
    List<String> addresses = List.of("127.0.0.1", "127.0.0.2");
    for (int i = 0; i < addresses.size(); i++) {
      // As in the docs' StatefulSet, the pod's address reaches context.xml as a system property; Tomcat replaces
      // ${...}. One JVM holds both nodes here, so each has a property of its own.
      String podIp = "tandem.it.podIp." + i;
      System.setProperty(podIp, addresses.get(i));
      attributes.add("clusterName=\"" + clusterName + "\" sharedSecret=\"integration-test-secret-123\""
          + " discovery=\"kubernetes\" kubernetesServiceDns=\"localhost\" bindAddress=\"${" + podIp + "}\""
          + " membershipPort=\"" + membershipPort + "\" transportPort=\"" + TomcatNode.freePort() + "\"");
    }
    cluster = new TomcatCluster(work, attributes);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);

    assertThat(n2.manager().engine().members().stream().map(m -> m.value()))
        .containsExactlyInAnyOrder("n1", "n2");
    assertThat(cluster.get(n1, "/set?name=cart&value=book")).startsWith("ok ");
    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());

    assertThat(cluster.get(n2, "/get?name=cart")).isEqualTo("book");
  }
}
