package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A membership service in one JVM: it agrees on views instantly and issues them with increasing view ids, so
 * engine tests control exactly when nodes join, leave and crash.
 *
 * <p>Implementation notes (who owns what): {@link #lock} guards {@link #members} (started, live members in
 * join order), {@link #view} and {@link #closed}. A new view is built and handed to every member's dispatcher
 * while holding the lock, so members receive views in the same order the cluster issued them; listeners run
 * later on each member's own dispatcher thread, never under the lock.
 */
public final class InMemoryCluster implements AutoCloseable {
  private final Object lock = new Object();
  private final Map<NodeId, InMemoryMembership> members = new LinkedHashMap<>();
  /** Members out of the view for now, see {@link #suspend}. */
  private final Map<NodeId, InMemoryMembership> suspended = new LinkedHashMap<>();
  private MembershipView view = new MembershipView(0, List.of());
  private boolean closed;

  /** A membership for {@code id}; it joins the cluster on {@link InMemoryMembership#start()}. */
  public InMemoryMembership join(NodeId id, String transportAddress) {
    return join(id, transportAddress, 0);
  }

  /**
   * A membership for run {@code incarnation} of {@code id}. Started while another run of {@code id} is a member, it
   * replaces that run in one view, as Hazelcast replaces a member restarted at the same address before its failure
   * detector noticed (a new UUID): the others never see the node missing.
   */
  public InMemoryMembership join(NodeId id, String transportAddress, long incarnation) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(transportAddress, "transportAddress");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("cluster closed");
      }
      return new InMemoryMembership(this, new Member(id, transportAddress, incarnation));
    }
  }

  /** The node leaves gracefully, as if it closed its membership. Does nothing if it is not a member. */
  public void leave(NodeId id) {
    InMemoryMembership member;
    synchronized (lock) {
      member = members.get(id);
    }
    if (member != null) {
      member.close();
    }
  }

  /**
   * The node dies: the others get a view without it, and its own listeners get no further views (not even
   * views already issued but not yet delivered to them).
   */
  public void crash(NodeId id) {
    synchronized (lock) {
      InMemoryMembership member = members.get(id);
      if (member == null) {
        throw new IllegalArgumentException("no member " + id);
      }
      member.silence();
      remove(member);
    }
  }

  /**
   * The node stops running for a while, as a SIGSTOPped process does: the others get a view without it, and it gets
   * no view while it is out. Its engine keeps everything it held. {@link #thaw} brings it back.
   */
  public void suspend(NodeId id) {
    synchronized (lock) {
      InMemoryMembership member = members.get(id);
      if (member == null) {
        throw new IllegalArgumentException("no member " + id);
      }
      suspended.put(id, member);
      remove(member);
    }
  }

  /** A {@link #suspend suspended} node runs again and rejoins: every member, it too, gets a view with it. */
  public void thaw(NodeId id) {
    synchronized (lock) {
      InMemoryMembership member = suspended.remove(id);
      if (member == null) {
        throw new IllegalArgumentException("no suspended member " + id);
      }
      add(member);
    }
  }

  /**
   * The membership takes every member for dead while all of them run and their network works, as when a failure
   * detector misjudges (Hazelcast's master stopped heartbeating for longer than the timeout): each member gets a view
   * of itself alone. {@link #reunite} ends it.
   */
  public void isolateEach() {
    synchronized (lock) {
      for (InMemoryMembership member : members.values()) {
        view = new MembershipView(view.viewId() + 1, List.of(member.member()));
        member.offer(view);
      }
    }
  }

  /**
   * The membership disagrees: each member named gets a view of the members {@code views} lists for it (as a failure
   * detector on each side of a partition judges), the others nothing. {@link #reunite} ends it.
   */
  public void split(java.util.Map<NodeId, java.util.Set<NodeId>> views) {
    synchronized (lock) {
      for (java.util.Map.Entry<NodeId, java.util.Set<NodeId>> seen : views.entrySet()) {
        InMemoryMembership member = members.get(seen.getKey());
        List<io.tandem.core.spi.Member> listed = members.values().stream().map(InMemoryMembership::member)
            .filter(m -> seen.getValue().contains(m.id())).toList();
        view = new MembershipView(view.viewId() + 1, listed);
        member.offer(view);
      }
    }
  }

  /** After {@link #isolateEach}: every member gets a view of all members again. */
  public void reunite() {
    synchronized (lock) {
      publish();
    }
  }

  /** The latest view the cluster issued. */
  public MembershipView currentView() {
    synchronized (lock) {
      return view;
    }
  }

  /** Silences every member; no view is issued afterwards. */
  @Override
  public void close() {
    List<InMemoryMembership> all;
    synchronized (lock) {
      closed = true;
      all = new ArrayList<>(members.values());
      members.clear();
    }
    all.forEach(InMemoryMembership::silence);
  }

  void add(InMemoryMembership member) {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("cluster closed");
      }
      InMemoryMembership previous = members.get(member.localNode());
      if (previous != null && previous.member().incarnation() == member.member().incarnation()) {
        throw new IllegalStateException("node " + member.localNode() + " is already a member");
      }
      if (previous != null) {
        previous.silence(); // the former run is gone: it hears nothing more
      }
      members.put(member.localNode(), member);
      publish();
    }
  }

  void remove(InMemoryMembership member) {
    synchronized (lock) {
      if (members.remove(member.localNode(), member)) {
        publish();
      }
    }
  }

  /** Called with the lock held. */
  private void publish() {
    List<Member> live = members.values().stream().map(InMemoryMembership::member).toList();
    view = new MembershipView(view.viewId() + 1, live);
    for (InMemoryMembership member : members.values()) {
      member.offer(view);
    }
  }
}
