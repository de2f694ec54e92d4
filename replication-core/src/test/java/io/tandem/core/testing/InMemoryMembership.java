package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * One node's view of an {@link InMemoryCluster}. Created by {@link InMemoryCluster#join}.
 *
 * <p>Implementation notes (who owns what): the cluster calls {@link #offer} under its lock, which sets {@link
 * #current} and queues the view on this member's single dispatcher thread ({@code tandem-inmem-membership-<id>}).
 * That thread alone owns {@link #listeners} and {@link #lastDelivered}: adding a listener is itself a task on it,
 * so a new listener gets the latest delivered view first and then every later one, with no gap, no repeat and
 * never two calls at once. {@link #state} is guarded by {@code this}.
 */
public final class InMemoryMembership implements Membership {
  private static final System.Logger LOG = System.getLogger(InMemoryMembership.class.getName());

  private enum State {
    NEW,
    STARTED,
    CLOSED
  }

  private final InMemoryCluster cluster;
  private final Member member;
  private final ExecutorService dispatcher;
  private final List<ViewListener> listeners = new ArrayList<>();
  private final AtomicInteger listenerFailures = new AtomicInteger();
  private MembershipView lastDelivered;
  private volatile MembershipView current;
  private State state = State.NEW;

  InMemoryMembership(InMemoryCluster cluster, Member member) {
    this.cluster = cluster;
    this.member = member;
    this.dispatcher =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-inmem-membership-" + member.id());
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public NodeId localNode() {
    return member.id();
  }

  /** Joins: the cluster issues a view with this node, which is current when this returns. */
  @Override
  public void start() {
    synchronized (this) {
      if (state != State.NEW) {
        throw new IllegalStateException("membership of " + member.id() + " is " + state);
      }
      state = State.STARTED;
    }
    cluster.add(this);
  }

  /** The latest view issued to this node; it stops changing when the node leaves or crashes. */
  @Override
  public MembershipView currentView() {
    MembershipView view = current;
    if (view == null) {
      throw new IllegalStateException("membership of " + member.id() + " has not started");
    }
    return view;
  }

  /**
   * The listener gets the current view right away (asynchronously, on the dispatcher), then every later view. A
   * listener added before {@link #start} gets the first view.
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

  /** Leaves gracefully: the others get a view without this node; this node's listeners get no more views. */
  @Override
  public void close() {
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
    }
    cluster.remove(this);
    dispatcher.shutdown();
  }

  /**
   * Waits until the view issued to this node satisfies {@code condition}, and returns it, so engine tests can
   * wait for a membership change without sleeping. The view may not have reached the listeners yet.
   */
  public MembershipView awaitView(Predicate<MembershipView> condition, Duration atMost) {
    Objects.requireNonNull(condition, "condition");
    return Awaitility.await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> current, view -> view != null && condition.test(view));
  }

  /**
   * How many times a listener threw. Failures are logged at debug level only, so that tests of failing listeners
   * keep the build output clean; assert on this instead.
   */
  public int listenerFailures() {
    return listenerFailures.get();
  }

  @Override
  public String toString() {
    return "InMemoryMembership[" + member.id() + "]";
  }

  Member member() {
    return member;
  }

  /** Called by the cluster, under its lock, in view order. */
  void offer(MembershipView view) {
    current = view;
    dispatch(
        () -> {
          if (lastDelivered != null && view.viewId() <= lastDelivered.viewId()) {
            return;
          }
          lastDelivered = view;
          for (ViewListener listener : List.copyOf(listeners)) {
            call(listener, view);
          }
        });
  }

  /** Crash: drop undelivered views and deliver nothing more. */
  void silence() {
    synchronized (this) {
      state = State.CLOSED;
    }
    dispatcher.shutdownNow();
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
      LOG.log(Level.DEBUG, "view listener on " + member.id() + " failed for " + view, e);
    }
  }
}
