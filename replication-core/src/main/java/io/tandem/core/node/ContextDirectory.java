package io.tandem.core.node;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which contexts (applications) each member of the node's cluster runs, and from that each context's membership view:
 * the members of the shared (authenticated) view that run the context. A member without the application is never in
 * its view, so never its buddy, never asked to locate one of its sessions, and a context reloaded on a member leaves
 * and re-enters the view, which makes the other members' engines re-protect what it held.
 *
 * <p>Members tell each other with {@link Message.Contexts}, a request carrying the sender's list and answered with the
 * receiver's: exchanged with every member that enters the shared view, with every member whenever this node's list
 * changes, with a member again after it refused a request of a context it was thought to run, and retried with
 * back-off after a failed exchange while the member stays in the view. A list is kept when it is newer than the one
 * held ({@code incarnation} names a run of the sender's runtime, {@code revision} its changes in that run).
 *
 * <p>A context attached here publishes no view until every member of the shared view answered the exchange its attach
 * started (a failed exchange is retried, not taken for an answer), the member left, or the attach's wait ended ({@link
 * #endFirstRound}), so its engine never starts believing it is alone while its peers run the application.
 *
 * <p>Implementation notes: every field but {@link #current}, {@link #localMember} and {@link #sharedNow} is owned by {@link #thread} (one
 * thread in production, {@code tandem-contexts-<node>}); public methods hop onto it, and views are delivered to
 * listeners on it, one at a time and in increasing id order. Exchanges are sent from it without a lock (the transport
 * may write on the caller's thread). {@link #current}, {@link #localMember} and {@link #sharedNow} are published for other
 * threads.
 */
final class ContextDirectory implements AutoCloseable {
  private static final Logger LOG = System.getLogger(ContextDirectory.class.getName());
  private static final Duration RETRY_MIN = Duration.ofMillis(250);
  private static final Duration RETRY_MAX = Duration.ofSeconds(5);

  private final NodeId local;
  private final Transport transport;
  private final Scheduler thread;
  private final long incarnation;

  // Owned by the directory's thread.
  private MembershipView shared;
  private final Map<NodeId, Heard> heard = new HashMap<>();
  private final Map<NodeId, Integer> failures = new HashMap<>();
  private final Set<NodeId> retryScheduled = new HashSet<>();
  private final Set<String> mine = new TreeSet<>();
  private long revision;
  private final Map<String, Scope> scopes = new HashMap<>();
  private long nextViewId = 1;

  private final ConcurrentHashMap<String, MembershipView> current = new ConcurrentHashMap<>();
  private volatile Member localMember;
  private volatile MembershipView sharedNow;

  /** What a member said it runs. */
  private record Heard(long incarnation, long revision, Set<String> contexts) {}

  /** An attached context: its listeners, its last view, and the members its attach still waits for. */
  private static final class Scope {
    final List<io.tandem.core.spi.Membership.ViewListener> listeners = new ArrayList<>();
    final CompletableFuture<Void> firstRound = new CompletableFuture<>();
    final Set<NodeId> awaiting = new HashSet<>();
    /** Attached before the first shared view arrived: its first round starts with that view. */
    boolean awaitingSharedView;
    /** Its first round is over: its views are published from now on. */
    boolean settled;
    MembershipView last;
  }

  ContextDirectory(NodeId local, Transport transport, Scheduler thread, long incarnation) {
    this.local = local;
    this.transport = transport;
    this.thread = thread;
    this.incarnation = incarnation;
  }

  NodeId localNode() {
    return local;
  }

  /** The shared view changed: members that left are forgotten, members that entered are told this node's list. */
  void sharedViewChanged(MembershipView view) {
    thread.execute(() -> {
      MembershipView previous = shared;
      if (previous != null && view.viewId() <= previous.viewId()) {
        return;
      }
      shared = view;
      sharedNow = view;
      view.member(local).ifPresent(m -> localMember = m);
      heard.keySet().removeIf(id -> !view.contains(id));
      failures.keySet().removeIf(id -> !view.contains(id));
      for (Scope scope : scopes.values()) {
        scope.awaiting.removeIf(id -> !view.contains(id));
      }
      for (NodeId member : view.memberIds()) {
        if (!member.equals(local) && (previous == null || !previous.contains(member))) {
          exchange(member); // this node's list, whatever it holds: each new member learns it and answers its own
        }
      }
      for (Map.Entry<String, Scope> attached : scopes.entrySet()) {
        Scope scope = attached.getValue();
        if (scope.awaitingSharedView) {
          scope.awaitingSharedView = false;
          view.memberIds().stream().filter(id -> !id.equals(local)).forEach(scope.awaiting::add);
          settleFirstRound(attached.getKey(), scope);
        }
      }
      publishAll();
    });
  }

  /**
   * Runs {@code context} here from now on: every member is told. The future completes once every member of the shared
   * view answered or left (or {@link #endFirstRound}), and the context's first view is published then.
   */
  CompletableFuture<Void> attach(String context) {
    CompletableFuture<Void> attached = new CompletableFuture<>();
    thread.execute(() -> {
      if (!mine.add(context)) {
        attached.completeExceptionally(new IllegalStateException("context [" + context + "] is already running on node "
            + local.value() + " in this cluster: two applications of one node must not share a name"));
        return;
      }
      revision++;
      Scope scope = new Scope();
      scopes.put(context, scope);
      scope.firstRound.whenComplete((done, failure) -> attached.complete(null));
      if (shared == null) {
        // Who the members are is not known yet: the first round waits for them, rather than finding nobody.
        scope.awaitingSharedView = true;
        return;
      }
      shared.memberIds().stream().filter(id -> !id.equals(local)).forEach(scope.awaiting::add);
      exchangeWithAll();
      settleFirstRound(context, scope);
    });
    return attached;
  }

  /**
   * The members whose list of contexts this node holds, read on the directory's thread: a test waits on it for the
   * answers it gave to be handled, since they reach that thread after the exchange that sent them registered for them.
   */
  CompletableFuture<java.util.Set<NodeId>> heardFrom() {
    CompletableFuture<java.util.Set<NodeId>> known = new CompletableFuture<>();
    thread.execute(() -> known.complete(java.util.Set.copyOf(heard.keySet())));
    return known;
  }

  /** Ends the wait of {@code context}'s attach: members that did not answer yet enter its view when they do. */
  void endFirstRound(String context) {
    thread.execute(() -> {
      Scope scope = scopes.get(context);
      if (scope != null) {
        scope.awaiting.clear();
        scope.awaitingSharedView = false;
        settleFirstRound(context, scope);
      }
    });
  }

  /** Stops running {@code context} here; every member is told, and the future completes once each answered or failed. */
  CompletableFuture<Void> detach(String context) {
    CompletableFuture<Void> told = new CompletableFuture<>();
    thread.execute(() -> {
      scopes.remove(context);
      current.remove(context);
      if (mine.remove(context)) {
        revision++;
      }
      CompletableFuture.allOf(exchangeWithAll().toArray(CompletableFuture[]::new))
          .whenComplete((done, failure) -> told.complete(null));
    });
    return told;
  }

  /** A member's list, sent as a request: kept if newer, and answered with this node's. */
  CompletableFuture<Message> received(NodeId from, Message.Contexts contexts) {
    CompletableFuture<Message> answer = new CompletableFuture<>();
    thread.execute(() -> {
      record(from, contexts);
      answer.complete(mine());
    });
    return answer;
  }

  /** {@code peer} refused a request of {@code context}: it leaves the context's view until it says it runs it. */
  void refused(NodeId peer, String context) {
    thread.execute(() -> {
      Heard known = heard.get(peer);
      if (known != null && known.contexts().contains(context)) {
        Set<String> without = new TreeSet<>(known.contexts());
        without.remove(context);
        heard.put(peer, new Heard(known.incarnation(), known.revision(), Set.copyOf(without)));
        LOG.log(Level.INFO, "Node {0}: {1} refused a request of context [{2}] it was thought to run; asking it again",
            local.value(), peer.value(), context);
        publish(context, scopes.get(context));
        exchange(peer);
      }
    });
  }

  void addViewListener(String context, io.tandem.core.spi.Membership.ViewListener listener) {
    thread.execute(() -> {
      Scope scope = scopes.get(context);
      if (scope == null) {
        return; // detached meanwhile: no view will come
      }
      scope.listeners.add(listener);
      if (scope.last != null) {
        deliver(listener, scope.last);
      }
    });
  }

  /** The context's last view; before its first, a view of this node alone (null before the shared view's first). */
  MembershipView currentView(String context) {
    MembershipView view = current.get(context);
    if (view != null) {
      return view;
    }
    Member me = localMember;
    return me == null ? null : new MembershipView(0, List.of(me));
  }

  /**
   * Whether {@code peer} is a member of the shared view that is out of {@code context}'s view: it left the application,
   * not the cluster (an undeploy or a reload there). Any thread.
   */
  boolean leftTheContextOnly(NodeId peer, String context) {
    MembershipView node = sharedNow;
    MembershipView scoped = current.get(context);
    return node != null && node.contains(peer) && (scoped == null || !scoped.contains(peer));
  }

  @Override
  public void close() {
    thread.close();
  }

  // ---- the directory's thread -------------------------------------------------------------------------------------

  private Message.Contexts mine() {
    return new Message.Contexts(incarnation, revision, List.copyOf(mine));
  }

  private List<CompletableFuture<Void>> exchangeWithAll() {
    List<CompletableFuture<Void>> exchanges = new ArrayList<>();
    if (shared != null) {
      for (NodeId member : shared.memberIds()) {
        if (!member.equals(local)) {
          exchanges.add(exchange(member));
        }
      }
    }
    return exchanges;
  }

  /** Sends this node's list to {@code peer}; its answer (or failure) is handled on this thread. */
  private CompletableFuture<Void> exchange(NodeId peer) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    transport.request(peer, mine()).whenComplete((reply, failure) -> thread.execute(() -> {
      answered(peer, reply, failure);
      done.complete(null);
    }));
    return done;
  }

  private void answered(NodeId peer, Message reply, Throwable failure) {
    if (shared == null || !shared.contains(peer)) {
      return;
    }
    if (reply instanceof Message.Contexts contexts) {
      failures.remove(peer);
      record(peer, contexts);
      for (Map.Entry<String, Scope> scope : scopes.entrySet()) {
        if (scope.getValue().awaiting.remove(peer)) {
          settleFirstRound(scope.getKey(), scope.getValue());
        }
      }
    } else {
      int failed = failures.merge(peer, 1, Integer::sum);
      if (failed == 1) {
        LOG.log(Level.INFO, "Node {0}: {1} did not say which contexts it runs ({2}); asking again with back-off",
            local.value(), peer.value(), failure != null ? failure.toString() : reply.type());
      }
      if (retryScheduled.add(peer)) {
        long delay = Math.min(RETRY_MAX.toMillis(), RETRY_MIN.toMillis() << Math.min(failed - 1, 10));
        thread.schedule(() -> {
          retryScheduled.remove(peer);
          if (shared != null && shared.contains(peer)) {
            exchange(peer);
          }
        }, Duration.ofMillis(delay));
      }
      // A failed exchange is no answer: an attach keeps waiting for the retry (a member slow to connect must not be
      // left out of the first view while it runs the application), until the member leaves or the attach's wait ends.
    }
  }

  private void record(NodeId from, Message.Contexts contexts) {
    Heard known = heard.get(from);
    if (known == null || known.incarnation() != contexts.incarnation() || contexts.revision() >= known.revision()) {
      heard.put(from, new Heard(contexts.incarnation(), contexts.revision(), Set.copyOf(contexts.contexts())));
      publishAll();
    }
  }

  private void settleFirstRound(String context, Scope scope) {
    if (scope.awaiting.isEmpty() && !scope.awaitingSharedView && !scope.settled) {
      scope.settled = true;
      publish(context, scope); // before the attach returns, so the engine's first view is there when it starts
      scope.firstRound.complete(null);
    }
  }

  private void publishAll() {
    scopes.forEach(this::publish);
  }

  private void publish(String context, Scope scope) {
    if (scope == null || !scope.settled || shared == null) {
      return;
    }
    List<Member> members = shared.members().stream()
        .filter(m -> m.id().equals(local) || runs(m.id(), context)).toList();
    if (scope.last != null && scope.last.members().equals(members)) {
      return;
    }
    MembershipView view = new MembershipView(nextViewId++, members);
    scope.last = view;
    current.put(context, view);
    for (io.tandem.core.spi.Membership.ViewListener listener : scope.listeners) {
      deliver(listener, view);
    }
  }

  private boolean runs(NodeId member, String context) {
    Heard known = heard.get(member);
    return known != null && known.contexts().contains(context);
  }

  private void deliver(io.tandem.core.spi.Membership.ViewListener listener, MembershipView view) {
    try {
      listener.viewChanged(view);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "View listener of node " + local.value() + " failed on " + view, e);
    }
  }
}
