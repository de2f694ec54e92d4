package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.FreePorts;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hazelcast's own Kubernetes discovery, DNS-lookup mode, as Tandem configures it, without Kubernetes: what a
 * headless Service's name gives (the pods' addresses, all with the same membership port) is given here by {@code
 * localhost}, which the JVM's resolver answers with 127.0.0.1 from the machine's hosts file. Hazelcast's DNS mode
 * is a plain {@code InetAddress.getAllByName} (A/AAAA records, no SRV), so this is the code path a pod runs.
 *
 * <p>Two nodes share one port, as pods do, on two loopback addresses: {@code a} on 127.0.0.1 (what the name
 * resolves to) and {@code b} on 127.0.0.2. {@code b} can only find {@code a} through the lookup: the TCP join list,
 * multicast and auto-detection are all off. {@code a} finds only itself, which is what the first pod of a
 * StatefulSet sees, so it starts first and forms the cluster.
 */
class KubernetesDiscoveryIT {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");

  private final List<HazelcastMembership> started = new ArrayList<>();

  @AfterEach
  void close() {
    started.forEach(HazelcastMembership::close);
  }

  @Test
  void dnsLookup_nameResolvingToTheFirstNode_secondNodeJoinsItsCluster() throws Exception {
    assertThat(Arrays.stream(InetAddress.getAllByName("localhost")).map(InetAddress::getHostAddress))
        .as("what this machine resolves localhost to").contains("127.0.0.1").doesNotContain("127.0.0.2");
    String cluster = "k8s-dns-" + UUID.randomUUID();
    int port = FreePorts.loopback();
    MemberDiscovery discovery = new MemberDiscovery.KubernetesDns("localhost");

    HazelcastMembership a = start(cluster, A, "127.0.0.1", port, discovery);
    HazelcastMembership b = start(cluster, B, "127.0.0.2", port, discovery);

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(a.currentView().memberIds()).containsExactlyInAnyOrder(A, B);
      assertThat(b.currentView().memberIds()).containsExactlyInAnyOrder(A, B);
    });
    assertThat(b.currentView().member(A).orElseThrow().transportAddress()).isEqualTo("test://127.0.0.1");
  }

  /**
   * API mode against a stand-in for the Kubernetes API: the Service's EndpointSlices list both addresses, so each
   * node finds the other. A pod has the API's address, its CA certificate and a token from its service account; here
   * they come from Hazelcast's own system properties ({@code hazelcast.kubernetes.*}), the only way to set them.
   */
  @Test
  void kubernetesApi_endpointSlicesOfTheService_bothNodesJoin(@TempDir Path work) throws Exception {
    String cluster = "k8s-api-" + UUID.randomUUID();
    int port = FreePorts.loopback();
    try (FakeKubernetesApi api = new FakeKubernetesApi(work, "shop", "shop-tandem", List.of("127.0.0.1", "127.0.0.2"), port)) {
      Map<String, String> properties = Map.of(
          "hazelcast.kubernetes.kubernetes-master", api.url(),
          "hazelcast.kubernetes.api-token", FakeKubernetesApi.TOKEN,
          "hazelcast.kubernetes.ca-certificate", api.certificatePem());
      properties.forEach(System::setProperty);
      HazelcastMembership a;
      HazelcastMembership b;
      try {
        MemberDiscovery discovery = new MemberDiscovery.KubernetesApi("shop", "shop-tandem");
        a = start(cluster, A, "127.0.0.1", port, discovery);
        b = start(cluster, B, "127.0.0.2", port, discovery);
      } finally {
        properties.keySet().forEach(System::clearProperty);
      }

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        assertThat(a.currentView().memberIds()).containsExactlyInAnyOrder(A, B);
        assertThat(b.currentView().memberIds()).containsExactlyInAnyOrder(A, B);
      });
      assertThat(api.requests).contains("Bearer " + FakeKubernetesApi.TOKEN
          + " /apis/discovery.k8s.io/v1/namespaces/shop/endpointslices?labelSelector=kubernetes.io/service-name=shop-tandem");
    }
  }

  private HazelcastMembership start(String cluster, NodeId id, String host, int port, MemberDiscovery discovery) {
    HazelcastMembership membership = new HazelcastMembership(
        HazelcastMembershipConfig.of(cluster, id, "test://" + host, host, port, List.of(host + ":" + port))
            .withDiscovery(discovery));
    started.add(membership);
    membership.start();
    return membership;
  }
}
