package io.tandem.tomcat;

import io.tandem.core.spi.NodeId;
import io.tandem.transport.hazelcast.HazelcastMembership;
import io.tandem.transport.hazelcast.HazelcastMembershipConfig;
import io.tandem.transport.hazelcast.MemberDiscovery;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link DropinJarIT} in a class loader that holds only the drop-in jar and this class, so that Tandem's
 * classes, and the shaded Hazelcast they call, come from the jar: two members on one port, 127.0.0.1 and 127.0.0.2,
 * that find each other through Kubernetes DNS discovery of {@code localhost}.
 */
public final class DropinDiscoveryProbe {
  private DropinDiscoveryProbe() {}

  /** Where the membership classes came from, then the second node's view once it has both members. */
  public static List<String> formCluster(String cluster, int port) throws InterruptedException {
    HazelcastMembership a = start(cluster, "a", "127.0.0.1", port);
    try {
      HazelcastMembership b = start(cluster, "b", "127.0.0.2", port);
      try {
        CountDownLatch both = new CountDownLatch(1);
        b.addViewListener(view -> {
          if (view.members().size() == 2) {
            both.countDown();
          }
        });
        both.await(30, TimeUnit.SECONDS);
        String source = HazelcastMembership.class.getProtectionDomain().getCodeSource().getLocation().toString();
        return List.of(source, b.currentView().memberIds().toString());
      } finally {
        b.close();
      }
    } finally {
      a.close();
    }
  }

  private static HazelcastMembership start(String cluster, String node, String host, int port) {
    HazelcastMembership membership = new HazelcastMembership(
        HazelcastMembershipConfig.of(cluster, NodeId.of(node), "test://" + host, host, port, List.of(host + ":" + port))
            .withDiscovery(new MemberDiscovery.KubernetesDns("localhost")));
    membership.start();
    return membership;
  }
}
