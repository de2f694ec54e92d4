package io.tandem.core.simulation;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The simulated membership service, in the way Hazelcast behaves for the engine: a failure detector that notices a
 * killed, crashed, paused or cut-off member some seconds later, and views that reach the members one by one, each at
 * its own moment. Each responsive member's view is the set of members it can exchange heartbeats with (its component
 * in the graph of live, unpaused members without the membership cuts), so a partition gives each side its own view and
 * a healed one merges them again.
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton.
 */
final class SimMembership {
  private final Simulation sim;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  /** "a|b" with a &lt; b: heartbeats between a and b are lost (the transport may still connect them). */
  private final Set<String> cuts = new HashSet<>();
  private long viewIds;

  SimMembership(Simulation sim) {
    this.sim = sim;
  }

  Node member(String node) {
    Node n = new Node(node, sim.incarnation(node));
    nodes.put(node, n);
    return n;
  }

  void cut(String a, String b) {
    cuts.add(a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a);
  }

  void heal(String a, String b) {
    cuts.remove(a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a);
  }

  void healAll() {
    cuts.clear();
  }

  /** Something changed: the failure detector notices within {@code fromMillis}..{@code toMillis}. */
  void noticeWithin(long fromMillis, long toMillis) {
    sim.after(sim.millisBetween(fromMillis, toMillis), "membership settles", this::settle);
  }

  /** The view each member would see now, if it differs from what it has, goes out to it. */
  void settle() {
    for (Node n : nodes.values()) {
      if (!n.started || n.left || !responsive(n.name)) {
        continue;
      }
      TreeSet<String> component = runs(component(n.name));
      if (!component.equals(n.decided)) {
        n.issue(component);
      }
    }
  }

  /**
   * Each member's name with its run ("n4#2"): a node restarted before the failure detector noticed is another member
   * under the same name, as Hazelcast sees a restarted member (a new UUID), so the others' views change.
   */
  private TreeSet<String> runs(TreeSet<String> names) {
    TreeSet<String> runs = new TreeSet<>();
    for (String name : names) {
      runs.add(name + "#" + nodes.get(name).incarnation);
    }
    return runs;
  }

  /** Members {@code node} can reach through heartbeats, itself included. */
  TreeSet<String> component(String node) {
    TreeSet<String> seen = new TreeSet<>();
    ArrayDeque<String> todo = new ArrayDeque<>(List.of(node));
    while (!todo.isEmpty()) {
      String at = todo.poll();
      if (!seen.add(at)) {
        continue;
      }
      for (Node other : nodes.values()) {
        if (!seen.contains(other.name) && other.started && !other.left && responsive(other.name)
            && !cuts.contains(at.compareTo(other.name) < 0 ? at + "|" + other.name : other.name + "|" + at)) {
          todo.add(other.name);
        }
      }
    }
    return seen;
  }

  private boolean responsive(String node) {
    Node n = nodes.get(node);
    return n != null && sim.alive(node) && sim.incarnation(node) == n.incarnation && !sim.paused(node);
  }

  /** One node's membership. */
  final class Node implements Membership {
    final String name;
    final int incarnation;
    private final List<ViewListener> listeners = new ArrayList<>();
    private TreeSet<String> decided;
    private MembershipView current;
    private long lastDelivery;
    private boolean started;
    private boolean left;

    Node(String name, int incarnation) {
      this.name = name;
      this.incarnation = incarnation;
    }

    @Override
    public NodeId localNode() {
      return new NodeId(name);
    }

    /** Joins: the view of the members it reaches now is current at once; the others hear of it soon after. */
    @Override
    public void start() {
      started = true;
      TreeSet<String> component = runs(component(name));
      decided = component;
      current = view(component);
      sim.trace().add("view " + name + " " + current);
      noticeWithin(50, 500);
    }

    private void issue(TreeSet<String> members) {
      decided = members;
      MembershipView view = view(members);
      current = view;
      long at = Math.max(sim.nanos() + sim.millisBetween(0, 300), lastDelivery);
      lastDelivery = at;
      sim.afterOn(name, incarnation, at - sim.nanos(), "view " + view, () -> {
        sim.trace().add("view " + name + " " + view);
        for (ViewListener listener : List.copyOf(listeners)) {
          listener.viewChanged(view);
        }
      });
    }

    private MembershipView view(TreeSet<String> members) {
      List<Member> list = new ArrayList<>();
      for (String run : members) {
        String m = run.substring(0, run.indexOf('#'));
        list.add(new Member(new NodeId(m), "sim:" + m, Long.parseLong(run.substring(run.indexOf('#') + 1))));
      }
      return new MembershipView(++viewIds, list);
    }

    @Override
    public MembershipView currentView() {
      return current;
    }

    @Override
    public void addViewListener(ViewListener listener) {
      MembershipView now = current;
      sim.afterOn(name, incarnation, 0, "first view", () -> {
        listeners.add(listener);
        if (now != null) {
          listener.viewChanged(now);
        }
      });
    }

    /** Leaves: the others see it go at once (a graceful leave is announced). */
    @Override
    public void close() {
      if (!left) {
        left = true;
        noticeWithin(0, 100);
      }
    }
  }
}
