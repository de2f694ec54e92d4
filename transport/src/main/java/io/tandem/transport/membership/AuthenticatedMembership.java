package io.tandem.transport.membership;

import io.tandem.core.config.Units;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A {@link Membership} that passes on only members this node has authenticated: a member of the underlying view
 * enters the views the engine sees (and so the buddy ring) only after a handshake proved it holds the shared
 * secret. The underlying membership (Hazelcast OSS) checks nothing but the cluster name, so without this a node
 * with a wrong secret would join the ring and silently swallow every write sent to it.
 *
 * <p>Each new member is probed at once; a member that fails is probed again with back-off ({@code reprobeMin}
 * doubling to {@code reprobeMax}) while it stays in the view, and is listed by {@link #refusedMembers()}. A member
 * that authenticated stays admitted until it leaves the underlying view (a restart is probed afresh).
 *
 * <p>{@link #start()} refuses to return when this node is the odd one out: if members were already running and
 * every one that answered refused this node (none authenticated), it throws {@link MemberAuthenticationException}
 * naming them and why, so that a node with a wrong secret, or one that shares no protocol version with the cluster,
 * fails to start instead of running alone as a black hole.
 *
 * <p>View ids: view {@code n} of the underlying membership becomes {@code n * 65536 + 65535} once every member of
 * it is admitted (so nodes agree on it, as the contract wants), and {@code n * 65536 + k} for the k-th partial view
 * before that; ids therefore only increase.
 *
 * <p>Implementation notes: one thread ({@code tandem-auth-membership-<node>}) owns all state: the underlying
 * view, each member's status, the listeners and the last delivered view. Underlying views, probe outcomes and
 * re-probe timers are all tasks on it, so views are delivered one at a time and in order, and no lock exists.
 * {@link #current} and {@link #refused} are volatile snapshots for other threads.
 */
public final class AuthenticatedMembership implements Membership {
  private static final Logger LOG = System.getLogger(AuthenticatedMembership.class.getName());
  private static final long COMPLETE = 0xFFFF;

  private final Membership delegate;
  private final MemberProber prober;
  private final Duration startupWait;
  private final Duration reprobeMin;
  private final Duration reprobeMax;
  private final ScheduledExecutorService thread;
  private final CompletableFuture<Void> firstRound = new CompletableFuture<>();

  // Owned by the membership thread.
  private final Map<NodeId, Status> statuses = new HashMap<>();
  private final List<ViewListener> listeners = new ArrayList<>();
  private MembershipView underlying;
  private MembershipView lastDelivered;
  private long revision;
  private boolean firstRoundPending = true;

  private volatile MembershipView current;
  private volatile Map<NodeId, String> refused = Map.of();

  private static final class Status {
    final Member member;
    ProbeOutcome outcome;
    int failures;
    boolean probing;

    Status(Member member) {
      this.member = member;
    }

    boolean admitted() {
      return outcome != null && outcome.status() == ProbeOutcome.Status.AUTHENTICATED;
    }
  }

  /** With the defaults: wait up to 10s at start for the first verdicts; re-probe after 500ms doubling to 30s. */
  public AuthenticatedMembership(Membership delegate, MemberProber prober) {
    this(delegate, prober, Duration.ofSeconds(10), Duration.ofMillis(500), Duration.ofSeconds(30));
  }

  public AuthenticatedMembership(Membership delegate, MemberProber prober, Duration startupWait, Duration reprobeMin,
      Duration reprobeMax) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.prober = Objects.requireNonNull(prober, "prober");
    this.startupWait = startupWait;
    this.reprobeMin = reprobeMin;
    this.reprobeMax = reprobeMax;
    String name = "tandem-auth-membership-" + delegate.localNode().value();
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public NodeId localNode() {
    return delegate.localNode();
  }

  @Override
  public void start() throws Exception {
    delegate.start();
    delegate.addViewListener(view -> thread.execute(() -> onUnderlying(view)));
    try {
      firstRound.get(startupWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // Members that gave no verdict in time are neither for nor against; they are probed again later.
    }
    CompletableFuture<String> verdict = new CompletableFuture<>();
    thread.execute(() -> verdict.complete(startupVerdict()));
    String problem = verdict.get(startupWait.toMillis(), TimeUnit.MILLISECONDS);
    if (problem != null) {
      close();
      throw new MemberAuthenticationException(problem);
    }
  }

  /** Null when this node may run; otherwise why not. Membership thread. */
  private String startupVerdict() {
    List<Status> others = new ArrayList<>(statuses.values());
    if (others.isEmpty() || others.stream().anyMatch(Status::admitted)) {
      return null;
    }
    List<Status> refusedUs = others.stream()
        .filter(s -> s.outcome != null && s.outcome.status() == ProbeOutcome.Status.REFUSED).toList();
    if (refusedUs.isEmpty()) {
      return null; // nobody answered yet: no evidence against this node
    }
    return "Node " + localNode().value() + " cannot authenticate with any running member of its cluster ("
        + refusedUs.stream().map(s -> s.member.id().value() + ": " + s.outcome.detail()).collect(Collectors.joining("; "))
        + ")." + refusedUs.stream().map(s -> s.outcome.refusal()).distinct().sorted()
            .map(AuthenticatedMembership::advice).collect(Collectors.joining());
  }

  private static String advice(ProbeOutcome.Refusal refusal) {
    return switch (refusal) {
      case WRONG_SECRET -> " Its sharedSecret differs from theirs: set the same sharedSecret on every member.";
      case PROTOCOL_VERSION -> " It shares no protocol version with them: run a Tandem release that speaks one of"
          + " theirs (each release speaks the version before its own, so upgrade one release at a time).";
      case WRONG_CLUSTER -> " They belong to another cluster: check clusterName and the membership settings.";
      case MISBEHAVED, NONE -> " Something other than a Tandem node of this cluster answers at their transport address.";
    };
  }

  @Override
  public MembershipView currentView() {
    MembershipView view = current;
    if (view != null) {
      return view;
    }
    // Before the first delivery only this node is known to be authentic (statuses belong to the membership thread).
    MembershipView raw = delegate.currentView();
    return raw == null ? null
        : new MembershipView(raw.viewId() * (COMPLETE + 1), raw.members().stream().filter(m -> m.id().equals(localNode())).toList());
  }

  @Override
  public void addViewListener(ViewListener listener) {
    thread.execute(() -> {
      listeners.add(listener);
      if (lastDelivered != null) {
        deliver(listener, lastDelivered);
      }
    });
  }

  /** Members that were refused by their last probe, with why: never in a view, never a buddy. */
  public Map<NodeId, String> refusedMembers() {
    return refused;
  }

  @Override
  public void close() {
    delegate.close();
    thread.shutdownNow();
  }

  // ---- membership thread -----------------------------------------------------------------------------------------

  private void onUnderlying(MembershipView view) {
    if (underlying != null && view.viewId() <= underlying.viewId()) {
      return;
    }
    underlying = view;
    revision = 0;
    statuses.keySet().removeIf(id -> !view.contains(id));
    for (Member member : view.members()) {
      if (member.id().equals(localNode())) {
        continue;
      }
      Status known = statuses.get(member.id());
      if (known == null || !known.member.equals(member)) {
        Status fresh = new Status(member);
        statuses.put(member.id(), fresh);
        probe(fresh);
      }
    }
    publish();
    checkFirstRound();
  }

  private void probe(Status status) {
    if (status.probing || statuses.get(status.member.id()) != status) {
      return;
    }
    status.probing = true;
    prober.probe(status.member).whenComplete((outcome, failure) -> {
      ProbeOutcome result = outcome != null ? outcome : ProbeOutcome.unreachable("probe failed: " + failure);
      try {
        thread.execute(() -> onOutcome(status, result));
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // closed meanwhile
      }
    });
  }

  private void onOutcome(Status status, ProbeOutcome outcome) {
    status.probing = false;
    if (statuses.get(status.member.id()) != status) {
      return; // the member left or re-advertised meanwhile
    }
    boolean wasAdmitted = status.admitted();
    status.outcome = outcome;
    if (outcome.status() == ProbeOutcome.Status.AUTHENTICATED) {
      status.failures = 0;
      if (!wasAdmitted) {
        LOG.log(Level.DEBUG, "Node {0}: member {1} authenticated", localNode().value(), status.member.id().value());
      }
    } else {
      if (outcome.status() == ProbeOutcome.Status.REFUSED && status.failures == 0) {
        LOG.log(Level.WARNING, "Node {0}: member {1} at {2} is not admitted to the ring: it {3}; probing it again with back-off",
            localNode().value(), status.member.id().value(), status.member.transportAddress(), outcome.detail());
      }
      long delay = Math.min(reprobeMax.toMillis(), reprobeMin.toMillis() << Math.min(status.failures, 20));
      status.failures++;
      thread.schedule(() -> probe(status), delay, TimeUnit.MILLISECONDS);
    }
    refreshRefused();
    publish();
    checkFirstRound();
  }

  private void refreshRefused() {
    Map<NodeId, String> now = new HashMap<>();
    statuses.forEach((id, s) -> {
      if (s.outcome != null && s.outcome.status() == ProbeOutcome.Status.REFUSED) {
        now.put(id, s.outcome.detail());
      }
    });
    refused = Map.copyOf(now);
  }

  private void checkFirstRound() {
    if (firstRoundPending && underlying != null && statuses.values().stream().allMatch(s -> s.outcome != null)) {
      firstRoundPending = false;
      firstRound.complete(null);
    }
  }

  private void publish() {
    if (underlying == null) {
      return;
    }
    boolean complete = underlying.members().stream().allMatch(m -> m.id().equals(localNode()) || admitted(m.id()));
    MembershipView next = admittedOnly(underlying, 0);
    if (lastDelivered != null && lastDelivered.members().equals(next.members()) && lastDelivered.viewId() / (COMPLETE + 1) == underlying.viewId()) {
      return;
    }
    long base = underlying.viewId() * (COMPLETE + 1);
    long id = complete ? base + COMPLETE : base + Math.min(revision++, COMPLETE - 1);
    if (lastDelivered != null && id <= lastDelivered.viewId()) {
      return; // more partial views of one underlying view than ids: the next underlying view will carry it
    }
    MembershipView view = new MembershipView(id, next.members());
    lastDelivered = view;
    current = view;
    for (ViewListener listener : listeners) {
      deliver(listener, view);
    }
  }

  private boolean admitted(NodeId id) {
    Status status = statuses.get(id);
    return status != null && status.admitted();
  }

  private MembershipView admittedOnly(MembershipView raw, long id) {
    return new MembershipView(id, raw.members().stream()
        .filter(m -> m.id().equals(localNode()) || admitted(m.id())).toList());
  }

  private void deliver(ViewListener listener, MembershipView view) {
    try {
      listener.viewChanged(view);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "View listener of " + localNode().value() + " failed on " + view, e);
    }
  }

  @Override
  public String toString() {
    return "AuthenticatedMembership[" + localNode().value() + ", reprobe " + Units.format(reprobeMin) + ".." + Units.format(reprobeMax) + "]";
  }
}
