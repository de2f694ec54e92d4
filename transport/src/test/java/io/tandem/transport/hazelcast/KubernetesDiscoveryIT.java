package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.FreePorts;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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

  private HazelcastMembership start(String cluster, NodeId id, String host, int port, MemberDiscovery discovery) {
    HazelcastMembership membership = new HazelcastMembership(
        HazelcastMembershipConfig.of(cluster, id, "test://" + host, host, port, List.of(host + ":" + port))
            .withDiscovery(discovery));
    started.add(membership);
    membership.start();
    return membership;
  }
}
