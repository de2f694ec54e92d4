package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One member's side of an {@link InMemoryCluster}. Views reach listeners on this member's own dispatcher thread,
 * one at a time, in order; a listener that throws does not stop later views.
 */
public final class InMemoryMembership implements Membership {
  private final InMemoryCluster cluster;
  private final Member self;
  private final List<ViewListener> listeners = new CopyOnWriteArrayList<>();
  private final ExecutorService dispatcher;
  private volatile MembershipView latest = new MembershipView(0, List.of());
  private volatile boolean silenced;
  /** The last view handed to listeners; only the dispatcher thread touches it. */
  private MembershipView dispatched = new MembershipView(0, List.of());

  InMemoryMembership(InMemoryCluster cluster, Member self) {
    this.cluster = cluster;
    this.self = self;
    this.dispatcher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-inmem-view-" + self.id().value());
              t.setDaemon(true);
              return t;
            });
  }

  Member self() {
    return self;
  }

  @Override
  public NodeId localNode() {
    return self.id();
  }

  @Override
  public void start() {
    cluster.start(this);
  }

  @Override
  public MembershipView currentView() {
    return latest;
  }

  @Override
  public void addViewListener(ViewListener listener) {
    dispatcher.execute(
        () -> {
          listeners.add(listener);
          notify(listener, dispatched);
        });
  }

  void deliver(MembershipView view) {
    if (silenced) {
      return;
    }
    latest = view;
    dispatcher.execute(
        () -> {
          if (!silenced) {
            dispatched = view;
            listeners.forEach(l -> notify(l, view));
          }
        });
  }

  /** Crashed or closed: no further views. */
  void silence() {
    silenced = true;
  }

  private static void notify(ViewListener listener, MembershipView view) {
    try {
      listener.viewChanged(view);
    } catch (RuntimeException e) {
      System.getLogger(InMemoryMembership.class.getName())
          .log(System.Logger.Level.WARNING, "view listener failed on " + view, e);
    }
  }

  @Override
  public void close() {
    cluster.leave(self.id());
    silenced = true;
    dispatcher.shutdown();
  }
}
