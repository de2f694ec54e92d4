package io.tandem.tomcat;

import io.tandem.core.node.NodeRuntime;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.transport.grizzly.GrizzlyTransport;
import io.tandem.transport.hazelcast.HazelcastMembership;
import io.tandem.transport.hazelcast.HazelcastMembershipConfig;
import io.tandem.transport.membership.AuthenticatedMembership;
import java.time.Duration;

/**
 * A node's runtime for one cluster, built on Grizzly and Hazelcast: one transport and one Hazelcast member, shared by
 * every context of this JVM that names the cluster (see {@link NodeRuntimes}, which counts them).
 *
 * <p>Who owns what: this class owns the {@link NodeRuntime} (which starts and closes the transport and the member),
 * and keeps the Grizzly transport and the Hazelcast member for what only they can do: the transport's figures, and
 * {@link #halt} for the failover tests.
 *
 * <p>Implementation notes: immutable but for {@link #halted}, which is volatile.
 */
final class SharedCluster implements AutoCloseable {
  /** How long a context's start waits for the members to say which contexts they run (and its stop to be heard). */
  static final Duration ATTACH_WAIT = Duration.ofSeconds(5);

  private final RuntimeSettings settings;
  private final GrizzlyTransport transport;
  private final HazelcastMembership hazelcast;
  private final NodeRuntime runtime;
  private volatile boolean halted;

  private SharedCluster(RuntimeSettings settings, GrizzlyTransport transport, HazelcastMembership hazelcast, NodeRuntime runtime) {
    this.settings = settings;
    this.transport = transport;
    this.hazelcast = hazelcast;
    this.runtime = runtime;
  }

  /**
   * Starts the transport and joins the cluster. Threads it starts (selectors, membership, the directory) are created
   * with this class's loader as their context loader, so that they never pin a web application's.
   */
  static SharedCluster start(RuntimeSettings settings) throws Exception {
    ClusterSettings cluster = settings.cluster();
    NodeId node = new NodeId(cluster.nodeId());
    GrizzlyTransport transport = new GrizzlyTransport(cluster.transportConfig(node, settings.ackTimeout(),
        settings.maxFrameSize(), settings.tls()));
    HazelcastMembership hazelcast = new HazelcastMembership(new HazelcastMembershipConfig(cluster.clusterName(), node,
        cluster.bindAddress() + ":" + cluster.transportPort(), cluster.bindAddress(), cluster.membershipPort(),
        cluster.discovery(), Duration.ofSeconds(1), Duration.ofSeconds(3)));
    // Hazelcast's open-source membership authenticates nobody: only members that proved the shared secret to the
    // transport reach the views, and a node whose secret the running members refuse does not start.
    NodeRuntime runtime = new NodeRuntime(transport, new AuthenticatedMembership(hazelcast, transport),
        Scheduler.singleThread("tandem-contexts-" + node.value()), new java.security.SecureRandom().nextLong(), ATTACH_WAIT);
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(SharedCluster.class.getClassLoader());
    try {
      runtime.start();
    } catch (Exception e) {
      runtime.close();
      throw e;
    } finally {
      thread.setContextClassLoader(previous);
    }
    return new SharedCluster(settings, transport, hazelcast, runtime);
  }

  RuntimeSettings settings() {
    return settings;
  }

  NodeRuntime runtime() {
    return runtime;
  }

  GrizzlyTransport transport() {
    return transport;
  }

  /**
   * What {@code kill -9} of this node looks like to the rest of the cluster, for the failover tests: the Hazelcast
   * member terminates without a leave message and the transport drops what it queued and closes its sockets, for every
   * context of the node at once, as a killed process would. See {@code TandemManager.haltWithoutHandoff}.
   */
  void halt() {
    halted = true;
    hazelcast.crash();
    transport.close();
  }

  /** Whether {@link #halt} ran: a context stopping then hands nothing over, as on a killed node. */
  boolean halted() {
    return halted;
  }

  @Override
  public void close() {
    runtime.close();
  }
}
