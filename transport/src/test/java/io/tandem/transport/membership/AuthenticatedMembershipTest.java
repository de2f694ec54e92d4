package io.tandem.transport.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ring.BuddyRing;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.transport.grizzly.GrizzlyTransport;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue "Hostile network", item 2: a node without the shared secret became a buddy and every write to it was lost. */
class AuthenticatedMembershipTest {
  private static final String CLUSTER = "auth-membership";
  private static final byte[] SECRET = "the-right-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final byte[] OTHER = "some-other-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final NodeId C = NodeId.of("c");
  private static final NodeId D = NodeId.of("d");

  private final InMemoryCluster cluster = new InMemoryCluster();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    cluster.close();
  }

  private GrizzlyTransport transport(NodeId id, byte[] secret) throws Exception {
    return transport(id, secret, ProtocolVersions.spoken());
  }

  private GrizzlyTransport transport(NodeId id, byte[] secret, ProtocolVersions versions) throws Exception {
    GrizzlyTransport transport = new GrizzlyTransport(
        GrizzlyTransportConfig.loopback(CLUSTER, id, secret, Duration.ofSeconds(1)).withProtocolVersions(versions));
    toClose.add(transport);
    transport.start((from, request) -> CompletableFuture.completedFuture(new Message.Ack(1, 1)));
    return transport;
  }

  private AuthenticatedMembership member(NodeId id, GrizzlyTransport transport) {
    AuthenticatedMembership membership = new AuthenticatedMembership(cluster.join(id, transport.localAddress()), transport,
        Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(1));
    toClose.add(membership);
    return membership;
  }

  @Test
  void membersWithTheSecret_admitEachOther_withTheSameViewId() throws Exception {
    AuthenticatedMembership a = member(A, transport(A, SECRET));
    a.start();
    AuthenticatedMembership b = member(B, transport(B, SECRET));
    b.start();

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(a.currentView().memberIds()).containsExactly(A, B);
      assertThat(b.currentView()).isEqualTo(a.currentView());
    });
  }

  @Test
  void memberWithAnotherSecret_isNeverInTheViewNorABuddy_andIsListedAsRefused() throws Exception {
    GrizzlyTransport transportA = transport(A, SECRET);
    AuthenticatedMembership a = member(A, transportA);
    a.start();
    AuthenticatedMembership b = member(B, transport(B, SECRET));
    b.start();
    List<MembershipView> seenByA = new CopyOnWriteArrayList<>();
    a.addViewListener(seenByA::add);

    // A black hole: a node that runs without the check and a wrong secret joins the underlying membership.
    cluster.join(C, transport(C, OTHER).localAddress()).start();

    await().atMost(Duration.ofSeconds(5)).until(() -> a.refusedMembers().containsKey(C));
    assertThat(cluster.currentView().memberIds()).contains(C);
    assertThat(a.currentView().memberIds()).containsExactly(A, B);
    assertThat(seenByA).allSatisfy(v -> {
      assertThat(v.memberIds()).doesNotContain(C);
      assertThat(BuddyRing.buddyOf(v, A)).isNotEqualTo(java.util.Optional.of(C));
    });
    assertThat(a.refusedMembers().get(C)).contains("shared secret");
    assertThat(transportA.refusedMembers()).containsKey(C);
    assertThat(transportA.stats().refusedMembers()).isEqualTo(1);
  }

  @Test
  void nodeWhoseSecretNoRunningMemberAccepts_refusesToStartSayingSo() throws Exception {
    member(A, transport(A, SECRET)).start();
    member(B, transport(B, SECRET)).start();
    AuthenticatedMembership d = member(D, transport(D, OTHER));

    assertThatThrownBy(d::start).isInstanceOf(MemberAuthenticationException.class)
        .hasMessageContaining("sharedSecret differs").hasMessageContaining("a:").hasMessageContaining("b:");
  }

  /** Issue 28: a node one version ahead was taken for unreachable by every member and started alone. */
  @Test
  void nodeSharingNoProtocolVersionWithTheCluster_refusesToStartSayingSo_andTheMembersListItAsRefused() throws Exception {
    GrizzlyTransport transportA = transport(A, SECRET, new ProtocolVersions(5, 5));
    AuthenticatedMembership a = member(A, transportA);
    a.start();
    member(B, transport(B, SECRET, new ProtocolVersions(5, 5))).start();
    GrizzlyTransport transportD = transport(D, SECRET, new ProtocolVersions(6, 6));
    AuthenticatedMembership d = member(D, transportD);

    assertThatThrownBy(d::start).isInstanceOf(MemberAuthenticationException.class)
        .hasMessageContaining("a: speaks protocol version 5, and this node speaks 6: no version in common")
        .hasMessageContaining("b: speaks protocol version 5,")
        .hasMessageContaining("It shares no protocol version with them")
        .hasMessageNotContaining("sharedSecret differs");
    assertThat(transportD.refusedMembers()).containsOnlyKeys(A, B);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(a.refusedMembers()).containsKey(D);
      assertThat(a.refusedMembers().get(D)).contains("no version in common");
    });
    assertThat(a.currentView().memberIds()).containsExactly(A, B);
  }

  @Test
  void nodeOneVersionAhead_joinsAClusterOfThePreviousVersion_andIsAdmitted() throws Exception {
    AuthenticatedMembership a = member(A, transport(A, SECRET, new ProtocolVersions(5, 5)));
    a.start();
    GrizzlyTransport transportC = transport(C, SECRET, new ProtocolVersions(5, 6));
    AuthenticatedMembership c = member(C, transportC);
    c.start();

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(a.currentView().memberIds()).containsExactly(A, C);
      assertThat(c.currentView().memberIds()).containsExactly(A, C);
    });
    assertThat(c.refusedMembers()).isEmpty();
  }
}
