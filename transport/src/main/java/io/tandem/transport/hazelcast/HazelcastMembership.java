package io.tandem.transport.hazelcast;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Membership from an embedded Hazelcast member: TCP-IP join on an explicit list, multicast, auto-detection and
 * phone-home off, heartbeats tuned so a dead member leaves the view within seconds. Each member advertises its
 * Tandem node id and transport address as member attributes; Hazelcast is used for nothing else.
 *
 * <p>View ids are Hazelcast's member-list version, which every member agrees on for the same list. It is an
 * internal API (there is no public one); the choice is contained in {@link #memberListVersion()}.
 *
 * <p>Implementation notes: Hazelcast calls the membership listener on its event threads; each call only re-reads the
 * (consistent, ordered) member list and hands a view to the single dispatcher thread {@code
 * tandem-membership-<node>}, which is the only thread that calls view listeners, in view-id order. {@code
 * delivered} is touched by the dispatcher only.
 */
public final class HazelcastMembership implements Membership {
  private static final Logger LOG = System.getLogger(HazelcastMembership.class.getName());
  static final String NODE_ATTRIBUTE = "tandem.node";
  static final String TRANSPORT_ATTRIBUTE = "tandem.transport";

  private final HazelcastMembershipConfig config;
  private final List<ViewListener> listeners = new CopyOnWriteArrayList<>();
  private final ExecutorService dispatcher;
  private volatile HazelcastInstance hazelcast;
  private volatile MembershipView latest = new MembershipView(0, List.of());
  private MembershipView delivered = new MembershipView(0, List.of());
  private volatile boolean closed;

  public HazelcastMembership(HazelcastMembershipConfig config) {
    this.config = config;
    this.dispatcher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "tandem-membership-" + config.localNode().value());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public NodeId localNode() {
    return config.localNode();
  }

  @Override
  public synchronized void start() {
    if (hazelcast != null) {
      throw new IllegalStateException("already started");
    }
    hazelcast = Hazelcast.newHazelcastInstance(hazelcastConfig());
    hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        refresh();
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        refresh();
      }
    });
    refresh();
    LOG.log(Level.INFO, "Tandem membership of {0} joined cluster {1}: {2}", config.localNode().value(), config.clusterName(), latest);
  }

  private Config hazelcastConfig() {
    Config hz = new Config();
    hz.setClusterName(config.clusterName());
    hz.setInstanceName("tandem-" + config.clusterName() + "-" + config.localNode().value());
    hz.setProperty("hazelcast.logging.type", "jdk");
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.setProperty("hazelcast.heartbeat.interval.seconds", Long.toString(config.heartbeatInterval().toSeconds()));
    hz.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(config.maxNoHeartbeat().toSeconds()));
    hz.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    hz.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    hz.setProperty("hazelcast.wait.seconds.before.join", "0");
    hz.setProperty("hazelcast.shutdownhook.enabled", "false");
    hz.getMemberAttributeConfig().setAttribute(NODE_ATTRIBUTE, config.localNode().value());
    hz.getMemberAttributeConfig().setAttribute(TRANSPORT_ATTRIBUTE, config.transportAddress());
    NetworkConfig network = hz.getNetworkConfig();
    network.setPort(config.port()).setPortAutoIncrement(false);
    network.getInterfaces().setEnabled(true).addInterface(config.bindHost());
    network.setPublicAddress(config.bindHost() + ":" + config.port());
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(config.joinMembers());
    return hz;
  }

  /** Re-reads the member list (never trusting event deltas) and queues the view for the listeners. */
  private void refresh() {
    HazelcastInstance instance = hazelcast;
    if (instance == null || closed) {
      return;
    }
    MembershipView view;
    synchronized (this) {
      List<Member> members = new ArrayList<>();
      long version = memberListVersion(instance);
      for (com.hazelcast.cluster.Member member : instance.getCluster().getMembers()) {
        String node = member.getAttribute(NODE_ATTRIBUTE);
        String transport = member.getAttribute(TRANSPORT_ATTRIBUTE);
        if (node != null && transport != null) {
          members.add(new Member(new NodeId(node), transport));
        }
      }
      if (version <= latest.viewId()) {
        version = latest.viewId() + (members.equals(latest.members()) ? 0 : 1);
      }
      if (version == latest.viewId()) {
        return;
      }
      view = new MembershipView(version, members);
      latest = view;
    }
    dispatcher.execute(() -> {
      if (view.viewId() > delivered.viewId()) {
        delivered = view;
        listeners.forEach(l -> notify(l, view));
      }
    });
  }

  private static long memberListVersion(HazelcastInstance instance) {
    if (instance instanceof HazelcastInstanceProxy proxy && proxy.getOriginal() != null) {
      return proxy.getOriginal().node.getClusterService().getMemberListVersion();
    }
    return 0;
  }

  @Override
  public MembershipView currentView() {
    return latest;
  }

  @Override
  public void addViewListener(ViewListener listener) {
    dispatcher.execute(() -> {
      listeners.add(listener);
      if (delivered.viewId() > 0) {
        notify(listener, delivered);
      }
    });
  }

  private static void notify(ViewListener listener, MembershipView view) {
    try {
      listener.viewChanged(view);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "A membership view listener failed on " + view + "; later views are still delivered", e);
    }
  }

  /** Stops Hazelcast at once, without telling the others: for tests that simulate a crash. */
  void crash() {
    closed = true;
    HazelcastInstance instance = hazelcast;
    if (instance != null) {
      instance.getLifecycleService().terminate();
    }
    dispatcher.shutdownNow();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    HazelcastInstance instance = hazelcast;
    if (instance != null) {
      instance.shutdown();
    }
    dispatcher.shutdown();
  }
}
