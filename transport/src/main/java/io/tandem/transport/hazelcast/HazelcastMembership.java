package io.tandem.transport.hazelcast;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.KubernetesConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.kubernetes.KubernetesProperties;
import com.hazelcast.spi.properties.ClusterProperty;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.EventListener;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Membership backed by an embedded Hazelcast member, so that Tandem gets Hazelcast's failure detection and its
 * master-ordered member list without Tandem code depending on Hazelcast types.
 *
 * <p>Each node runs one Hazelcast member that finds the others through the configured {@link MemberDiscovery} (a
 * TCP-IP member list or Kubernetes; no multicast, no auto-detection, no phone-home) and publishes two member
 * attributes: its Tandem node id and its transport address. A view is the Hazelcast member list, re-read whole on every membership event rather than patched with
 * event deltas, keeping only members that carry both attributes. Its id is Hazelcast's member list version, which
 * the master assigns, so every node gives the same list the same id (see {@link MemberListReader}). Should that
 * version ever go backwards (after a split-brain merge), views are numbered locally from the last id on, so ids
 * still only increase on this node.
 *
 * <p>Hazelcast logs through JDK logging ({@code hazelcast.logging.type=jdk}), so in Tomcat it lands in JULI.
 *
 * <p>Implementation notes (who owns what): {@link #lock} guards {@link #state}, {@link #instance} and the
 * publication of views. {@link #refresh} runs on Hazelcast event threads and on the starting thread; under the lock
 * it reads the member list, and if that gives a new view it queues the delivery on the dispatcher thread ({@code
 * tandem-membership-<node>}) and only then sets {@link #current}, so whoever sees a view as current and then adds a
 * listener is queued behind that view's delivery. The dispatcher thread alone owns {@link #listeners} and {@link
 * #lastDelivered}; adding a listener is itself a task on it, so a new listener gets the latest delivered view first
 * and then every later one, with no gap, no repeat and never two calls at once.
 */
public final class HazelcastMembership implements Membership {
  private static final System.Logger LOG = System.getLogger(HazelcastMembership.class.getName());

  /** Member attribute holding the Tandem node id. */
  static final String NODE_ATTRIBUTE = "tandem.node";

  /** Member attribute holding the transport address. */
  static final String TRANSPORT_ATTRIBUTE = "tandem.transport";

  /**
   * Member attribute holding this start's run number (the member's incarnation). Not Hazelcast's member UUID: a
   * split-brain merge gives a member that kept running (and kept its sessions) a new UUID, which read as a restart
   * made the others adopt the copies they held of it, an ended session among them (docs/protocol.md 11.3.43).
   * Hazelcast copies a member's attributes to the member it re-creates at a merge, so the run changes only when the
   * process starts Tandem again. A member of an older release publishes none, and is read by its UUID as before.
   */
  static final String RUN_ATTRIBUTE = "tandem.run";

  /** Hazelcast keeps no Tandem data, so leaving never needs to wait long for partition hand-over. */
  private static final String GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS = "10";

  private enum State {
    NEW,
    STARTING,
    STARTED,
    CLOSED
  }

  private final HazelcastMembershipConfig config;
  /** This start's run number, published as {@link #RUN_ATTRIBUTE}: random, so a restart under the same id differs. */
  private final long run = newRun();
  private final ExecutorService dispatcher;
  private final Object lock = new Object();
  private final List<ViewListener> listeners = new ArrayList<>();
  private final AtomicInteger listenerFailures = new AtomicInteger();
  private MembershipView lastDelivered;
  private volatile MembershipView current;
  private State state = State.NEW;
  private HazelcastInstance instance;

  public HazelcastMembership(HazelcastMembershipConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    String threadName = "tandem-membership-" + config.localNode();
    this.dispatcher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public NodeId localNode() {
    return config.localNode();
  }

  /**
   * Starts the Hazelcast member and joins (or forms) the cluster. Returns once the local member is in the cluster
   * and {@link #currentView()} contains it; on a loaded machine this takes several seconds.
   */
  @Override
  public void start() {
    synchronized (lock) {
      if (state != State.NEW) {
        throw new IllegalStateException("membership of " + localNode() + " is " + state);
      }
      state = State.STARTING;
    }
    HazelcastInstance started;
    try {
      started = Hazelcast.newHazelcastInstance(hazelcastConfig(config, run, new Events()));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    synchronized (lock) {
      if (state == State.CLOSED) {
        started.shutdown();
        throw new IllegalStateException("membership of " + localNode() + " was closed while starting");
      }
      instance = started;
      state = State.STARTED;
    }
    refresh();
    MembershipView view = current;
    if (view == null || !view.contains(localNode())) {
      close();
      throw new IllegalStateException(
          "Hazelcast started but the member list has no member with node id " + localNode() + ": " + view);
    }
    LOG.log(Level.INFO, () -> "Tandem node " + localNode() + " joined cluster " + config.clusterName() + ": " + view);
  }

  /** The latest view of this node; it stops changing when the node leaves. */
  @Override
  public MembershipView currentView() {
    MembershipView view = current;
    if (view == null) {
      throw new IllegalStateException("membership of " + localNode() + " has not started");
    }
    return view;
  }

  /**
   * The listener gets the current view right away (asynchronously, on the dispatcher thread), then every later
   * view. A listener added before {@link #start} gets the first view.
   */
  @Override
  public void addViewListener(ViewListener listener) {
    Objects.requireNonNull(listener, "listener");
    dispatch(
        () -> {
          listeners.add(listener);
          if (lastDelivered != null) {
            call(listener, lastDelivered);
          }
        });
  }

  /**
   * Leaves the cluster gracefully, so the others drop this node at once instead of waiting for failure detection.
   * Views already queued are still delivered; no later ones are. Idempotent.
   */
  @Override
  public void close() {
    HazelcastInstance toStop;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      toStop = instance;
    }
    try {
      if (toStop != null) {
        toStop.shutdown();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Hazelcast member of " + localNode() + " did not shut down cleanly", e);
    } finally {
      dispatcher.shutdown();
    }
  }

  @Override
  public String toString() {
    return "HazelcastMembership[" + localNode() + "@" + config.clusterName() + "]";
  }

  /**
   * Stops abruptly, the way a crash would: the Hazelcast member terminates without telling the others, and
   * undelivered views are dropped. For tests of failure detection (here and, through {@code
   * TandemManager.haltWithoutHandoff}, in the Tomcat failover tests); Tandem itself never calls it.
   */
  public void crash() {
    HazelcastInstance toKill;
    synchronized (lock) {
      state = State.CLOSED;
      toKill = instance;
    }
    dispatcher.shutdownNow();
    if (toKill != null) {
      toKill.getLifecycleService().terminate();
    }
  }

  /** How many times a listener threw; each failure is also logged. */
  int listenerFailures() {
    return listenerFailures.get();
  }

  /** The Hazelcast configuration for {@code config}, with {@code listener} registered before the member starts. */
  private static final String MERGE_CHECK_SECONDS = "5";

  static Config hazelcastConfig(HazelcastMembershipConfig config, EventListener listener) {
    return hazelcastConfig(config, newRun(), listener);
  }

  static Config hazelcastConfig(HazelcastMembershipConfig config, long run, EventListener listener) {
    Config hz = new Config();
    hz.setClusterName(config.clusterName());
    hz.setInstanceName("tandem-" + config.localNode() + "-" + config.clusterName());
    hz.setProperty(ClusterProperty.PHONE_HOME_ENABLED.getName(), "false");
    // This member carries membership only, on a node whose CPU serves requests (often under a container's quota).
    // Hazelcast's own bookkeeping for data members is switched off: the metrics collection (every 5 s, every metric
    // of every service, for Management Center and JMX), the slow-operation detector's thread (it wakes every 100 ms to
    // look for operations this member never runs) and the health monitor.
    hz.getMetricsConfig().setEnabled(false);
    hz.setProperty(ClusterProperty.SLOW_OPERATION_DETECTOR_ENABLED.getName(), "false");
    hz.setProperty(ClusterProperty.HEALTH_MONITORING_LEVEL.getName(), "OFF");
    hz.setProperty(ClusterProperty.LOGGING_TYPE.getName(), "jdk");
    hz.setProperty(ClusterProperty.SOCKET_BIND_ANY.getName(), "false");
    hz.setProperty("hazelcast.local.localAddress", config.bindHost());
    hz.setProperty(
        ClusterProperty.HEARTBEAT_INTERVAL_SECONDS.getName(),
        Long.toString(config.heartbeatInterval().getSeconds()));
    hz.setProperty(
        ClusterProperty.MAX_NO_HEARTBEAT_SECONDS.getName(), Long.toString(config.maxNoHeartbeat().getSeconds()));
    hz.setProperty(ClusterProperty.GRACEFUL_SHUTDOWN_MAX_WAIT.getName(), GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS);
    // A member that was frozen or cut off past failure detection forms a cluster of its own; Hazelcast merges it
    // back only when its split-brain check runs, 300 s after start and every 120 s by default. A replica that
    // cannot confirm its sessions refuses them until then, so it should come back within seconds.
    hz.setProperty(ClusterProperty.MERGE_FIRST_RUN_DELAY_SECONDS.getName(), MERGE_CHECK_SECONDS);
    hz.setProperty(ClusterProperty.MERGE_NEXT_RUN_DELAY_SECONDS.getName(), MERGE_CHECK_SECONDS);
    // Membership carries no application objects, but Hazelcast's member port deserializes Java-serialized payloads
    // from anyone who reaches it and names the cluster: its filter (known gadget classes refused, only its default
    // allowed prefixes) is off unless configured.
    hz.getSerializationConfig().setJavaSerializationFilterConfig(new JavaSerializationFilterConfig());
    hz.getMemberAttributeConfig()
        .setAttribute(NODE_ATTRIBUTE, config.localNode().value())
        .setAttribute(TRANSPORT_ATTRIBUTE, config.transportAddress())
        .setAttribute(RUN_ATTRIBUTE, Long.toString(run));

    NetworkConfig network = hz.getNetworkConfig();
    network.setPort(config.port()).setPortAutoIncrement(false);
    JoinConfig join = network.getJoin();
    join.getAutoDetectionConfig().setEnabled(false);
    join.getMulticastConfig().setEnabled(false);
    configureDiscovery(join, config);

    hz.addListenerConfig(new ListenerConfig(listener));
    return hz;
  }

  /**
   * A static list is Hazelcast's TCP-IP join; Kubernetes is Hazelcast's own Kubernetes discovery (in the Hazelcast
   * jar, so in the drop-in jar too), with the looked-up addresses joined on this node's own port.
   */
  private static void configureDiscovery(JoinConfig join, HazelcastMembershipConfig config) {
    MemberDiscovery discovery = config.discovery();
    if (discovery instanceof MemberDiscovery.Members members) {
      join.getTcpIpConfig().setEnabled(true).setMembers(new ArrayList<>(members.members()));
      return;
    }
    join.getTcpIpConfig().setEnabled(false);
    KubernetesConfig kubernetes = join.getKubernetesConfig().setEnabled(true);
    kubernetes.setProperty(KubernetesProperties.SERVICE_PORT.key(), Integer.toString(config.port()));
    // Public addresses are for Hazelcast clients outside the cluster; Tandem has none, and looking them up costs
    // Kubernetes API calls (services, nodes) and a misleading warning when they are not allowed.
    kubernetes.setProperty(KubernetesProperties.EXPOSE_EXTERNALLY.key(), "false");
    if (discovery instanceof MemberDiscovery.KubernetesDns dns) {
      kubernetes.setProperty(KubernetesProperties.SERVICE_DNS.key(), dns.serviceDns());
    } else if (discovery instanceof MemberDiscovery.KubernetesApi api) {
      kubernetes.setProperty(KubernetesProperties.SERVICE_NAME.key(), api.serviceName());
      if (api.namespace() != null) {
        kubernetes.setProperty(KubernetesProperties.NAMESPACE.key(), api.namespace());
      }
    } else {
      throw new IllegalArgumentException("unknown discovery " + discovery);
    }
  }

  /** Re-reads the member list and publishes a view if it changed. Any thread; never blocks on listeners. */
  private void refresh() {
    synchronized (lock) {
      if (state != State.STARTED) {
        return;
      }
      MemberListReader.Snapshot snapshot;
      try {
        snapshot = MemberListReader.read(instance);
      } catch (RuntimeException e) {
        // Shutting down or terminated under us: the next state change stops refreshes anyway.
        LOG.log(Level.DEBUG, "member list of " + localNode() + " not readable", e);
        return;
      }
      List<Member> members = tandemMembers(snapshot.members());
      MembershipView previous = current;
      long viewId;
      if (previous == null) {
        viewId = Math.max(0, snapshot.version());
      } else if (snapshot.version() > previous.viewId()) {
        if (members.equals(previous.members())) {
          return;
        }
        viewId = snapshot.version();
      } else if (!members.equals(previous.members())) {
        viewId = previous.viewId() + 1;
        if (snapshot.version() != MemberListReader.UNKNOWN_VERSION) {
          LOG.log(
              Level.INFO,
              "Hazelcast member list version went back from "
                  + previous.viewId()
                  + " to "
                  + snapshot.version()
                  + " (merge?); "
                  + localNode()
                  + " numbers its views locally until the cluster's version passes "
                  + viewId);
        }
      } else {
        return;
      }
      MembershipView view = new MembershipView(viewId, members);
      dispatch(() -> deliver(view));
      current = view;
      LOG.log(Level.DEBUG, () -> "membership of " + localNode() + ": " + view);
    }
  }

  /** The Tandem members among {@code hazelcastMembers}; of two claiming one node id, the older one counts. */
  private List<Member> tandemMembers(List<com.hazelcast.cluster.Member> hazelcastMembers) {
    Map<NodeId, Member> byId = new LinkedHashMap<>();
    for (com.hazelcast.cluster.Member hazelcastMember : hazelcastMembers) {
      String node = hazelcastMember.getAttribute(NODE_ATTRIBUTE);
      String address = hazelcastMember.getAttribute(TRANSPORT_ATTRIBUTE);
      if (node == null || address == null) {
        continue;
      }
      NodeId id;
      try {
        id = NodeId.of(node);
      } catch (IllegalArgumentException e) {
        LOG.log(Level.WARNING, "ignoring Hazelcast member " + hazelcastMember + ": " + e.getMessage());
        continue;
      }
      // A restarted member publishes another run under the same node id and address; a merged one keeps its run.
      Member member = new Member(id, address, incarnationOf(hazelcastMember));
      Member older = byId.putIfAbsent(id, member);
      if (older != null) {
        LOG.log(
            Level.WARNING,
            "two Hazelcast members claim node id " + id + "; keeping the older one until it leaves: " + older);
      }
    }
    return new MembershipView(0, List.copyOf(byId.values())).members();
  }

  /** The member's {@link #RUN_ATTRIBUTE}; for a member of an older release, which publishes none, its UUID. */
  static long incarnationOf(com.hazelcast.cluster.Member hazelcastMember) {
    String run = hazelcastMember.getAttribute(RUN_ATTRIBUTE);
    if (run != null) {
      try {
        return Long.parseLong(run);
      } catch (NumberFormatException e) {
        LOG.log(Level.WARNING, "Hazelcast member " + hazelcastMember + " publishes a run that is not a number: " + run
            + "; reading its run from its member UUID");
      }
    }
    java.util.UUID uuid = hazelcastMember.getUuid();
    return uuid == null ? 0 : uuid.getMostSignificantBits() ^ uuid.getLeastSignificantBits();
  }

  /** A run number for one start of this membership: a random 64-bit value (a restart picks another). */
  private static long newRun() {
    java.util.UUID random = java.util.UUID.randomUUID();
    return random.getMostSignificantBits() ^ random.getLeastSignificantBits();
  }

  private void deliver(MembershipView view) {
    if (lastDelivered != null && view.viewId() <= lastDelivered.viewId()) {
      return;
    }
    lastDelivered = view;
    for (ViewListener listener : List.copyOf(listeners)) {
      call(listener, view);
    }
  }

  private void dispatch(Runnable task) {
    try {
      dispatcher.execute(task);
    } catch (RejectedExecutionException e) {
      // Closed or crashed: listeners get nothing more.
    }
  }

  private void call(ViewListener listener, MembershipView view) {
    try {
      listener.viewChanged(view);
    } catch (RuntimeException e) {
      listenerFailures.incrementAndGet();
      LOG.log(Level.WARNING, "view listener on " + localNode() + " failed for " + view, e);
    }
  }

  /** Hazelcast's callbacks; each only triggers a re-read of the whole member list. */
  private final class Events implements MembershipListener, LifecycleListener {
    @Override
    public void memberAdded(MembershipEvent event) {
      refresh();
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
      refresh();
    }

    @Override
    public void stateChanged(LifecycleEvent event) {
      if (event.getState() == LifecycleEvent.LifecycleState.MERGED) {
        refresh();
      }
    }
  }
}
