package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.NodeId;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import io.tandem.transport.hazelcast.MemberDiscovery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {
  private static Map<String, String> valid() {
    Map<String, String> attributes = new HashMap<>();
    attributes.put("transportPort", "4100");
    attributes.put("membershipPort", "5701");
    attributes.put("members", "127.0.0.1:5701");
    attributes.put("sharedSecret", "a-shared-secret-long-enough");
    return attributes;
  }

  /** Issue "Hostile network", item 5: a negative maxQueuedBytesPerPeer was accepted. */
  @Test
  void parse_negativeOrMalformedNumbers_areEachReportedWithTheAllowedRange() {
    Map<String, String> attributes = valid();
    attributes.put("maxQueuedBytesPerPeer", "-1");
    attributes.put("maxUnauthenticatedConnections", "0");
    attributes.put("handshakeTimeout", "0ms");
    attributes.put("stalledFrameTimeout", "soon");
    List<String> violations = new ArrayList<>();

    ClusterSettings.parse(attributes, "n1", violations);

    assertThat(violations).hasSize(4);
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("maxQueuedBytesPerPeer: '-1' must be a whole number between 65536"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("maxUnauthenticatedConnections: '0'"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("handshakeTimeout: '0ms' must be a duration between 100ms and 5m"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("stalledFrameTimeout: 'soon'"));
  }

  @Test
  void parse_unitsAccepted_andPassedToTheTransport() {
    Map<String, String> attributes = valid();
    attributes.put("maxQueuedBytesPerPeer", "128MiB");
    attributes.put("handshakeTimeout", "2s");
    List<String> violations = new ArrayList<>();

    ClusterSettings settings = ClusterSettings.parse(attributes, "n1", violations);
    GrizzlyTransportConfig transport = settings.transportConfig(new NodeId("n1"), Duration.ofMillis(500), 32 << 20, null);

    assertThat(violations).isEmpty();
    assertThat(transport.maxQueuedBytesPerPeer()).isEqualTo(128L << 20);
    assertThat(transport.handshakeTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(transport.maxUnauthenticatedConnections()).isEqualTo(GrizzlyTransportConfig.DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS);
    assertThat(settings.toString()).contains("handshakeTimeout=2s").doesNotContain("a-shared-secret");
  }

  @Test
  void writeLinger_defaultsToTheTransportsDefault_isPassedToTheTransport_andOutOfRangeValuesAreReported() {
    List<String> violations = new ArrayList<>();
    ClusterSettings defaults = ClusterSettings.parse(valid(), "n1", violations);
    assertThat(defaults.transportConfig(new NodeId("n1"), Duration.ofMillis(500), 32 << 20, null).writeLinger())
        .isEqualTo(GrizzlyTransportConfig.DEFAULT_WRITE_LINGER);

    Map<String, String> attributes = valid();
    attributes.put("writeLinger", "3ms");
    ClusterSettings set = ClusterSettings.parse(attributes, "n1", violations);
    assertThat(violations).isEmpty();
    assertThat(set.transportConfig(new NodeId("n1"), Duration.ofMillis(500), 32 << 20, null).writeLinger())
        .isEqualTo(Duration.ofMillis(3));

    attributes.put("writeLinger", "1s");
    ClusterSettings.parse(attributes, "n1", violations);
    assertThat(violations).singleElement().asString()
        .startsWith("writeLinger: '1s' must be a duration between 0ms and 100ms");
  }

  /** Issue "Hostile network", item 5: the unknown-setting error listed no valid settings. */
  @Test
  void unknownAttributeViolations_listTheValidAttributes() {
    Map<String, String> attributes = valid();
    attributes.put("colour", "blue");

    assertThat(ClusterSettings.unknownAttributeViolations(attributes, Set.of("scope", "mode")))
        .singleElement().asString()
        .startsWith("colour: unknown attribute; valid attributes are ")
        .contains("handshakeTimeout", "scope", "sharedSecret", "replicationFilter");
  }

  private static Map<String, String> kubernetes(String... pairs) {
    Map<String, String> attributes = valid();
    attributes.remove("members");
    attributes.put("discovery", "kubernetes");
    for (int i = 0; i < pairs.length; i += 2) {
      attributes.put(pairs[i], pairs[i + 1]);
    }
    return attributes;
  }

  private static List<String> violationsOf(Map<String, String> attributes) {
    List<String> violations = new ArrayList<>();
    ClusterSettings.parse(attributes, "n1", violations);
    return violations;
  }

  @Test
  void discovery_kubernetesDns_isTheDnsLookupOfThatName() {
    List<String> violations = new ArrayList<>();

    ClusterSettings settings = ClusterSettings.parse(
        kubernetes("kubernetesServiceDns", "tandem.shop.svc.cluster.local"), "n1", violations);

    assertThat(violations).isEmpty();
    assertThat(settings.discovery()).isEqualTo(new MemberDiscovery.KubernetesDns("tandem.shop.svc.cluster.local"));
    assertThat(settings.toString()).contains("discovery=kubernetes kubernetesServiceDns=tandem.shop.svc.cluster.local");
  }

  @Test
  void discovery_kubernetesApi_withOrWithoutNamespace() {
    List<String> violations = new ArrayList<>();

    ClusterSettings named = ClusterSettings.parse(
        kubernetes("kubernetesNamespace", "shop", "kubernetesServiceName", "tandem"), "n1", violations);
    ClusterSettings own = ClusterSettings.parse(kubernetes("kubernetesServiceName", "tandem"), "n1", violations);

    assertThat(violations).isEmpty();
    assertThat(named.discovery()).isEqualTo(new MemberDiscovery.KubernetesApi("shop", "tandem"));
    assertThat(own.discovery()).isEqualTo(new MemberDiscovery.KubernetesApi(null, "tandem"));
  }

  @Test
  void discovery_default_isTheStaticMembersList() {
    List<String> violations = new ArrayList<>();

    ClusterSettings settings = ClusterSettings.parse(valid(), "n1", violations);

    assertThat(violations).isEmpty();
    assertThat(settings.discovery()).isEqualTo(new MemberDiscovery.Members(List.of("127.0.0.1:5701")));
  }

  @Test
  void discovery_kubernetesWithoutServiceDnsOrName_isRefusedNamingBoth() {
    assertThat(violationsOf(kubernetes())).singleElement().asString()
        .startsWith("discovery: \"kubernetes\" needs kubernetesServiceDns")
        .contains("kubernetesServiceName", "tandem.shop.svc.cluster.local");
  }

  @Test
  void discovery_kubernetesWithMembers_isRefused_andEveryOtherViolationToo() {
    Map<String, String> attributes =
        kubernetes("members", "10.0.0.1:5701", "kubernetesServiceDns", "http://tandem:5701", "kubernetesNamespace", "shop");
    attributes.put("transportPort", "0");

    List<String> violations = violationsOf(attributes);

    assertThat(violations).hasSize(4);
    assertThat(violations).anySatisfy(v -> assertThat(v)
        .startsWith("members: '10.0.0.1:5701' is not used with discovery=\"kubernetes\""));
    assertThat(violations).anySatisfy(v -> assertThat(v)
        .startsWith("kubernetesServiceDns: 'http://tandem:5701' is not a DNS name"));
    assertThat(violations).anySatisfy(v -> assertThat(v)
        .startsWith("kubernetesNamespace: 'shop' is only used with kubernetesServiceName"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("transportPort: '0'"));
  }

  @Test
  void discovery_kubernetesWithBothServiceDnsAndName_isRefused() {
    assertThat(violationsOf(kubernetes("kubernetesServiceDns", "tandem.shop.svc.cluster.local",
        "kubernetesServiceName", "tandem"))).singleElement().asString()
        .startsWith("kubernetesServiceDns/kubernetesServiceName: set only one of them");
  }

  @Test
  void discovery_kubernetesApiNames_mustBeKubernetesNames() {
    assertThat(violationsOf(kubernetes("kubernetesNamespace", "Shop", "kubernetesServiceName", "tandem_svc")))
        .containsExactlyInAnyOrder(
            "kubernetesNamespace: 'Shop' is not a Kubernetes name (lower-case letters, digits and '-', at most 63 characters)",
            "kubernetesServiceName: 'tandem_svc' is not a Kubernetes name (lower-case letters, digits and '-', at most 63 characters)");
  }

  @Test
  void discovery_unknownValue_isRefusedListingTheAllowedOnes() {
    Map<String, String> attributes = valid();
    attributes.put("discovery", "multicast");

    assertThat(violationsOf(attributes)).singleElement().asString()
        .isEqualTo("discovery: 'multicast' is not one of static (the members list), kubernetes (kubernetesServiceDns,"
            + " or kubernetesServiceName with kubernetesNamespace)");
  }

  @Test
  void discovery_staticWithKubernetesAttributes_isRefused() {
    Map<String, String> attributes = valid();
    attributes.put("kubernetesServiceDns", "tandem.shop.svc.cluster.local");

    assertThat(violationsOf(attributes)).singleElement().asString()
        .startsWith("kubernetesServiceDns: 'tandem.shop.svc.cluster.local' is only used with discovery=\"kubernetes\"");
  }

  @Test
  void discovery_staticWithoutMembers_pointsToKubernetesToo() {
    Map<String, String> attributes = valid();
    attributes.remove("members");

    assertThat(violationsOf(attributes)).singleElement().asString()
        .startsWith("members: must list the membership address").contains("discovery=\"kubernetes\"");
  }

  @Test
  void loopbackWarning_onlyForKubernetesDiscoveryOnALoopbackAddress() {
    MemberDiscovery dns = new MemberDiscovery.KubernetesDns("tandem.shop.svc.cluster.local");

    assertThat(DiscoverySettings.loopbackWarning(dns, "127.0.0.1")).get().asString()
        .startsWith("bindAddress '127.0.0.1' is a loopback address, but discovery=\"kubernetes\"");
    assertThat(DiscoverySettings.loopbackWarning(dns, "10.1.2.3")).isEmpty();
    assertThat(DiscoverySettings.loopbackWarning(new MemberDiscovery.Members(List.of("127.0.0.1:5701")), "127.0.0.1"))
        .isEmpty();
  }
}
