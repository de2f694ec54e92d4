package io.tandem.transport.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the contract does not cover: crash detection time, foreign members, configuration and lifecycle. */
class HazelcastMembershipTest {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");
  private static final Duration REQUIRED_CRASH_DETECTION = Duration.ofSeconds(5);

  private final HazelcastMembershipFixture fixture = new HazelcastMembershipFixture(List.of(A, B, C));
  private final List<HazelcastInstance> foreign = new ArrayList<>();

  @AfterEach
  void close() {
    try {
      fixture.close();
    } finally {
      foreign.forEach(HazelcastInstance::shutdown);
    }
  }

  @Test
  void crashedMemberLeavesTheSurvivorsViewWithinFiveSeconds() throws Exception {
    Membership a = started(A);
    HazelcastMembership b = (HazelcastMembership) started(B);
    List<MembershipView> onA = new CopyOnWriteArrayList<>();
    a.addViewListener(onA::add);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.currentView().contains(B));

    long crashedAt = System.nanoTime();
    b.crash();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> !a.currentView().contains(B));
    Duration detection = Duration.ofNanos(System.nanoTime() - crashedAt);

    System.out.println("crashed member left the survivor's view after " + detection.toMillis() + " ms");
    assertThat(detection).isLessThan(REQUIRED_CRASH_DETECTION);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !onA.isEmpty() && onA.get(onA.size() - 1).memberIds().equals(List.of(A)));
  }

  /**
   * Every thread a member runs wakes up on the node's CPU, which serves requests. A member that carries membership
   * only runs no metrics collection (every 5 s, every metric of every service), no slow-operation detector (a thread
   * that wakes every 100 ms) and no health monitor.
   */
  @Test
  void aMembershipMemberRunsNoneOfHazelcastsBookkeepingForDataMembers() throws Exception {
    Membership a = started(A);
    HazelcastInstance member = Hazelcast.getHazelcastInstanceByName(
        HazelcastMembership.hazelcastConfig(fixture.config(A, "unused"), new IgnoreEvents()).getInstanceName());
    assertThat(a.currentView().memberIds()).contains(A);

    List<String> threads = Thread.getAllStackTraces().keySet().stream()
        .map(Thread::getName).filter(name -> name.startsWith("hz." + member.getName() + ".")).toList();
    assertThat(threads).isNotEmpty().noneMatch(name -> name.contains("SlowOperationDetector"));
    assertThat(member.getConfig().getMetricsConfig().isEnabled()).isFalse();
    assertThat(member.getConfig().getProperty("hazelcast.health.monitoring.level")).isEqualTo("OFF");
  }

  @Test
  void membersWithoutTandemAttributesAreNotInTheView() throws Exception {
    Membership a = started(A);
    Config plain = HazelcastMembership.hazelcastConfig(fixture.config(C, "unused"), new IgnoreEvents());
    plain.getMemberAttributeConfig().setAttributes(Map.of());
    HazelcastInstance stranger = Hazelcast.newHazelcastInstance(plain);
    foreign.add(stranger);
    assertThat(stranger.getCluster().getMembers()).hasSize(2);

    Membership b = started(B);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(a.currentView().memberIds()).containsExactly(A, B);
              assertThat(b.currentView()).isEqualTo(a.currentView());
            });
  }

  /** Serializable, outside every package Hazelcast's Java serialization filter allows. */
  static final class NotAHazelcastClass implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
  }

  @Test
  void membersPort_refusesToJavaDeserializeClassesOutsideHazelcastsFilter() throws Exception {
    Membership a = started(A);
    HazelcastInstance member = Hazelcast.getHazelcastInstanceByName(
        HazelcastMembership.hazelcastConfig(fixture.config(A, "unused"), new IgnoreEvents()).getInstanceName());
    var serialization = ((com.hazelcast.spi.impl.SerializationServiceSupport) member).getSerializationService();
    // What a stranger on the member port could send: Hazelcast's Java-serialization type id, then a JDK stream.
    var data = serialization.toData(new NotAHazelcastClass());

    assertThat(a.currentView().memberIds()).contains(A);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> serialization.toObject(data))
        .hasStackTraceContaining(NotAHazelcastClass.class.getName());
  }

  @Test
  void hazelcastIsConfiguredForAnExplicitTcpJoinOnly() {
    HazelcastMembershipConfig config = fixture.config(A, "grizzly://127.0.0.1:7000");

    Config hz = HazelcastMembership.hazelcastConfig(config, new IgnoreEvents());

    JoinConfig join = hz.getNetworkConfig().getJoin();
    assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
    assertThat(join.getTcpIpConfig().getMembers()).isEqualTo(((MemberDiscovery.Members) config.discovery()).members());
    assertThat(join.getKubernetesConfig().isEnabled()).isFalse();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
    assertThat(hz.getNetworkConfig().getPort()).isEqualTo(config.port());
    assertThat(hz.getNetworkConfig().isPortAutoIncrement()).isFalse();
    assertThat(hz.getClusterName()).isEqualTo(config.clusterName());
    assertThat(hz.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");
    assertThat(hz.getProperty("hazelcast.logging.type")).isEqualTo("jdk");
    assertThat(hz.getProperty("hazelcast.heartbeat.interval.seconds")).isEqualTo("1");
    assertThat(hz.getProperty("hazelcast.max.no.heartbeat.seconds")).isEqualTo("3");
    assertThat(hz.getMemberAttributeConfig().getAttributes())
        .containsEntry(HazelcastMembership.NODE_ATTRIBUTE, "a")
        .containsEntry(HazelcastMembership.TRANSPORT_ATTRIBUTE, "grizzly://127.0.0.1:7000");
  }

  @Test
  void kubernetesDnsDiscovery_replacesTheTcpJoin_andJoinsOnThisNodesPort() {
    HazelcastMembershipConfig config = fixture.config(A, "grizzly://127.0.0.1:7000")
        .withDiscovery(new MemberDiscovery.KubernetesDns("tandem.shop.svc.cluster.local"));

    JoinConfig join = HazelcastMembership.hazelcastConfig(config, new IgnoreEvents()).getNetworkConfig().getJoin();

    assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
    assertThat(join.getKubernetesConfig().isEnabled()).isTrue();
    assertThat(join.getKubernetesConfig().getProperties())
        .containsEntry("service-dns", "tandem.shop.svc.cluster.local")
        .containsEntry("service-port", Integer.toString(config.port()))
        .containsEntry("expose-externally", "false")
        .doesNotContainKeys("service-name", "namespace");
  }

  @Test
  void kubernetesApiDiscovery_namesServiceAndNamespace_orLeavesTheNamespaceToThePod() {
    HazelcastMembershipConfig config = fixture.config(A, "grizzly://127.0.0.1:7000");

    Map<String, String> named = HazelcastMembership.hazelcastConfig(
            config.withDiscovery(new MemberDiscovery.KubernetesApi("shop", "tandem")), new IgnoreEvents())
        .getNetworkConfig().getJoin().getKubernetesConfig().getProperties();
    Map<String, String> ownNamespace = HazelcastMembership.hazelcastConfig(
            config.withDiscovery(new MemberDiscovery.KubernetesApi(null, "tandem")), new IgnoreEvents())
        .getNetworkConfig().getJoin().getKubernetesConfig().getProperties();

    assertThat(named).containsEntry("service-name", "tandem").containsEntry("namespace", "shop")
        .doesNotContainKey("service-dns");
    assertThat(ownNamespace).containsEntry("service-name", "tandem").doesNotContainKey("namespace");
  }

  @Test
  void lifecycleMisuseIsRejectedAndCloseIsIdempotent() throws Exception {
    Membership a = fixture.create(A, "test://a");
    assertThatThrownBy(a::currentView).isInstanceOf(IllegalStateException.class).hasMessageContaining("a");

    a.start();
    assertThatThrownBy(a::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("STARTED");

    a.close();
    assertThatCode(a::close).doesNotThrowAnyException();
    assertThat(a.currentView().memberIds()).containsExactly(A);
    assertThatThrownBy(a::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("CLOSED");
  }

  @Test
  void startFailsWhenThePortIsTaken() throws Exception {
    HazelcastMembershipConfig config = fixture.config(A, "test://a");
    try (ServerSocket taken = new ServerSocket(config.port(), 1, InetAddress.getByName(config.bindHost()))) {
      assertThat(taken.isBound()).isTrue();
      HazelcastMembership a = new HazelcastMembership(config);

      assertThatThrownBy(a::start).hasMessageContaining(Integer.toString(config.port()));
      assertThatThrownBy(a::currentView).isInstanceOf(IllegalStateException.class);
    } catch (IOException e) {
      throw new AssertionError("could not hold port " + config.port(), e);
    }
  }

  @Test
  void loopbackDefaultsDetectFailuresWithinFiveSeconds() {
    HazelcastMembershipConfig config =
        HazelcastMembershipConfig.forLoopback("c1", A, "test://a", 5701, List.of(5701, 5702));

    assertThat(config.bindHost()).isEqualTo("127.0.0.1");
    assertThat(config.discovery()).isEqualTo(new MemberDiscovery.Members(List.of("127.0.0.1:5701", "127.0.0.1:5702")));
    assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.maxNoHeartbeat()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.maxNoHeartbeat().plus(config.heartbeatInterval())).isLessThan(REQUIRED_CRASH_DETECTION);
  }

  @Test
  void joinMembersAreCopied() {
    List<String> members = new ArrayList<>(List.of("10.0.0.1:5701"));
    HazelcastMembershipConfig config = HazelcastMembershipConfig.of("c1", A, "test://a", "10.0.0.1", 5701, members);

    members.add("10.0.0.2:5701");

    List<String> joinMembers = ((MemberDiscovery.Members) config.discovery()).members();
    assertThat(joinMembers).containsExactly("10.0.0.1:5701");
    assertThatThrownBy(() -> joinMembers.add("x")).isInstanceOf(UnsupportedOperationException.class);
  }

  static Stream<Arguments> invalidConfigs() {
    return Stream.of(
        invalid("clusterName", c -> copy(c, " ", c.localNode(), c.transportAddress(), c.bindHost(), c.port())),
        invalid("clusterName", c -> copy(c, null, c.localNode(), c.transportAddress(), c.bindHost(), c.port())),
        invalid("localNode", c -> copy(c, c.clusterName(), null, c.transportAddress(), c.bindHost(), c.port())),
        invalid("transportAddress", c -> copy(c, c.clusterName(), c.localNode(), "", c.bindHost(), c.port())),
        invalid("bindHost", c -> copy(c, c.clusterName(), c.localNode(), c.transportAddress(), null, c.port())),
        invalid("port", c -> copy(c, c.clusterName(), c.localNode(), c.transportAddress(), c.bindHost(), 0)),
        invalid("port", c -> copy(c, c.clusterName(), c.localNode(), c.transportAddress(), c.bindHost(), 65_536)),
        invalid("members", c -> withJoinMembers(c, List.of())),
        invalid("members", c -> withJoinMembers(c, null)),
        invalid("members", c -> withJoinMembers(c, List.of("127.0.0.1:5701", " "))),
        invalid("discovery", c -> c.withDiscovery(null)),
        invalid("serviceDns", c -> c.withDiscovery(new MemberDiscovery.KubernetesDns("http://tandem.shop.svc"))),
        invalid("serviceDns", c -> c.withDiscovery(new MemberDiscovery.KubernetesDns("tandem.shop.svc:5701"))),
        invalid("serviceDns", c -> c.withDiscovery(new MemberDiscovery.KubernetesDns(null))),
        invalid("serviceName", c -> c.withDiscovery(new MemberDiscovery.KubernetesApi("shop", null))),
        invalid("serviceName", c -> c.withDiscovery(new MemberDiscovery.KubernetesApi("shop", "Tandem"))),
        invalid("namespace", c -> c.withDiscovery(new MemberDiscovery.KubernetesApi("shop_1", "tandem"))),
        invalid("heartbeatInterval", c -> c.withFailureDetection(null, Duration.ofSeconds(3))),
        invalid("heartbeatInterval", c -> c.withFailureDetection(Duration.ZERO, Duration.ofSeconds(3))),
        invalid("heartbeatInterval", c -> c.withFailureDetection(Duration.ofMillis(1500), Duration.ofSeconds(3))),
        invalid("maxNoHeartbeat", c -> c.withFailureDetection(Duration.ofSeconds(1), null)),
        invalid("maxNoHeartbeat", c -> c.withFailureDetection(Duration.ofSeconds(1), Duration.ofMillis(2500))),
        invalid("maxNoHeartbeat", c -> c.withFailureDetection(Duration.ofSeconds(3), Duration.ofSeconds(3))));
  }

  @ParameterizedTest(name = "{0} #{index}")
  @MethodSource("invalidConfigs")
  void invalidConfigurationNamesTheField(String field, UnaryOperator<HazelcastMembershipConfig> breakIt) {
    HazelcastMembershipConfig valid =
        HazelcastMembershipConfig.forLoopback("c1", A, "test://a", 5701, List.of(5701, 5702));

    assertThatThrownBy(() -> breakIt.apply(valid))
        .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class)
        .hasMessageStartingWith(field + " ");
  }

  private static Arguments invalid(String field, UnaryOperator<HazelcastMembershipConfig> breakIt) {
    return Arguments.of(field, breakIt);
  }

  private static HazelcastMembershipConfig copy(
      HazelcastMembershipConfig c, String clusterName, NodeId node, String address, String bindHost, int port) {
    return new HazelcastMembershipConfig(
        clusterName, node, address, bindHost, port, c.discovery(), c.heartbeatInterval(), c.maxNoHeartbeat());
  }

  private static HazelcastMembershipConfig withJoinMembers(HazelcastMembershipConfig c, List<String> members) {
    return c.withDiscovery(new MemberDiscovery.Members(members));
  }

  private Membership started(NodeId id) throws Exception {
    Membership membership = fixture.create(id, "test://" + id);
    membership.start();
    return membership;
  }

  /** A Hazelcast listener for configs built outside a membership. */
  private static final class IgnoreEvents implements MembershipListener {
    @Override
    public void memberAdded(MembershipEvent event) {}

    @Override
    public void memberRemoved(MembershipEvent event) {}
  }
}
