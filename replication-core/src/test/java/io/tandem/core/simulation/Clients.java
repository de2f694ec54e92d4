package io.tandem.core.simulation;

import io.tandem.core.simulation.SimNode.Kind;
import io.tandem.core.simulation.SimNode.Request;
import io.tandem.core.simulation.SimNode.Response;
import io.tandem.core.simulation.SimNode.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The users: each drives one logical session through a sticky balancer — creates it, writes and reads its keys,
 * sends two requests at once (to one node or to two), logs in (a new id), logs out (invalidates) and starts again —
 * and an attacker replays ids that were given up. Every answer goes to the {@link Checker}.
 *
 * <p>A user sends its next request only once the previous one has really ended on its node (or its node died), even
 * when the user stopped waiting for it: a write still running after its client gave up may legitimately land after a
 * later one, and the checker could then not tell a late write from a lost one. Two requests sent at once write
 * different keys, for the same reason.
 *
 * <p>Implementation notes: touched only by the thread holding the simulation's baton.
 */
final class Clients {
  private static final String[] KEYS = {"a", "b", "c"};
  /** How long a client waits for an answer before it counts the request unknown (it keeps running on its node). */
  private static final long CLIENT_TIMEOUT_NANOS = 10_000_000_000L;

  private final Simulation sim;
  private final Map<String, SimNode> nodes;
  private final Checker checker;
  private final List<Checker.Logical> logicals = new ArrayList<>();
  private final List<String> givenUp = new ArrayList<>();
  private long values;
  private long stopAt;
  private int sessionsMade;
  final Counts counts = new Counts();

  static final class Counts {
    int requests;
    int ok;
    int unknown;
    int notFound;
    int refused;

    @Override
    public String toString() {
      return requests + " requests: " + ok + " ok, " + unknown + " unknown, " + notFound + " none, " + refused + " refused";
    }
  }

  /**
   * @param async the engines run in ASYNC mode: a 200 of a write, a creation or a login promises nothing about the
   *     buddy (its copy goes out after the answer), so none of them binds; a logout's 200 still does (an invalidation
   *     is sent at once and awaited in both modes)
   */
  private final boolean async;

  Clients(Simulation sim, Map<String, SimNode> nodes, Checker checker, boolean async) {
    this.sim = sim;
    this.nodes = nodes;
    this.checker = checker;
    this.async = async;
  }

  List<Checker.Logical> logicals() {
    return logicals;
  }

  /** {@code users} users start within the first second and stop sending at {@code stopAtNanos}. */
  void start(int users, long stopAtNanos) {
    this.stopAt = stopAtNanos;
    for (int i = 0; i < users; i++) {
      sim.after(sim.millisBetween(0, 1000), "user starts", this::newSession);
    }
  }

  private void newSession() {
    if (sim.nanos() >= stopAt) {
      return;
    }
    Checker.Logical l = new Checker.Logical(++sessionsMade);
    logicals.add(l);
    l.id = "s" + l.number;
    long value = ++values;
    String node = pick(null, true);
    if (node == null) {
      sim.after(sim.millisBetween(500, 1000), "no node up", () -> { logicals.remove(l); sessionsMade--; newSession(); });
      return;
    }
    long invoked = sim.nanos();
    send(node, new Request(Kind.CREATE, l.id, null, "a", value, null), response -> {
      if (response.status() == Status.OK) {
        if (async) {
          l.createdUnbound = true; // may be lost with its owner; the settle checks hold it to one owner if it exists
        } else if (!response.alone()) {
          l.exists = true;
          l.acknowledge("a", value, sim.nanos());
        }
      } else {
        l.retired = true; // the client never learnt the id (a 503 carries no cookie)
      }
      l.route = node;
      afterThink(l.retired ? this::newSession : () -> next(l));
    }, invoked);
  }

  private void next(Checker.Logical l) {
    if (sim.nanos() >= stopAt || l.retired) {
      return;
    }
    if (!givenUp.isEmpty() && sim.chance(0.05)) {
      probe(givenUp.get(sim.random().nextInt(givenUp.size())));
    }
    double roll = sim.random().nextDouble();
    if (roll < 0.50) {
      write(l, KEYS[sim.random().nextInt(KEYS.length)], sim.chance(0.1), () -> afterThink(() -> next(l)));
    } else if (roll < 0.80) {
      read(l, KEYS[sim.random().nextInt(KEYS.length)], sim.chance(0.1), () -> afterThink(() -> next(l)));
    } else if (roll < 0.90) {
      // two requests at once on one session, to one node or, as a balancer may send them, to two
      boolean apart = sim.chance(0.5);
      int[] left = {2};
      Runnable joined = () -> {
        if (--left[0] == 0) {
          afterThink(() -> next(l));
        }
      };
      int first = sim.random().nextInt(KEYS.length);
      write(l, KEYS[first], false, joined);
      if (sim.chance(0.5)) {
        write(l, KEYS[(first + 1) % KEYS.length], apart, joined);
      } else {
        read(l, KEYS[(first + 1) % KEYS.length], apart, joined);
      }
    } else if (roll < 0.96) {
      login(l);
    } else {
      invalidate(l);
    }
  }

  private void write(Checker.Logical l, String key, boolean elsewhere, Runnable then) {
    long value = ++values;
    String node = pick(l.route, elsewhere);
    if (node == null) {
      sim.after(sim.millisBetween(500, 1000), "no node up", then);
      return;
    }
    String id = l.id;
    long invoked = sim.nanos();
    send(node, new Request(Kind.WRITE, id, l.route, key, value, null), response -> {
      switch (response.status()) {
        case OK -> {
          if (!response.alone() && !async) {
            l.exists = true; // on two nodes now, whatever its creation promised
            l.acknowledge(key, value, sim.nanos());
          }
          l.route = node;
          checker.served(id, invoked, "a write");
        }
        case NOT_FOUND -> notFound(l, id, invoked);
        default -> { }
      }
      then.run();
    }, invoked);
  }

  private void read(Checker.Logical l, String key, boolean elsewhere, Runnable then) {
    String node = pick(l.route, elsewhere);
    if (node == null) {
      sim.after(sim.millisBetween(500, 1000), "no node up", then);
      return;
    }
    String id = l.id;
    long invoked = sim.nanos();
    send(node, new Request(Kind.READ, id, l.route, key, 0, null), response -> {
      if (response.status() == Status.OK) {
        l.route = node;
        checker.served(id, invoked, "a read");
        long floor = l.floor(key, invoked);
        long got = response.value() == null ? -1 : response.value();
        if (got < floor) {
          checker.violation(Checker.Kind.LOST_WRITE, l + " read " + key + "=" + (got < 0 ? "none" : got) + " on " + node + ", but " + floor
              + " was acknowledged before the read began: a lost write");
        }
      } else if (response.status() == Status.NOT_FOUND) {
        notFound(l, id, invoked);
      }
      then.run();
    }, invoked);
  }

  private void login(Checker.Logical l) {
    String node = pick(l.route, false);
    if (node == null) {
      afterThink(() -> next(l));
      return;
    }
    String old = l.id;
    String newId = old.replaceAll("L\\d+$", "") + "L" + (++values);
    long invoked = sim.nanos();
    send(node, new Request(Kind.LOGIN, old, l.route, null, 0, newId), response -> {
      switch (response.status()) {
        case OK -> {
          checker.served(old, invoked, "a login");
          if (response.alone()) {
            l.mayBeGone = true; // the new id is on one node only: a merge may keep the old one instead
          } else if (!async) { // in ASYNC the id change goes out after the answer: the owner's death may undo it
            checker.neverServeAgain(old, "given up by a login answered 200");
            givenUp.add(old);
          }
          l.id = newId;
          l.route = node;
        }
        case NOT_FOUND -> notFound(l, old, invoked);
        default -> {
          l.mayBeGone = true; // which id the session has now is unknown
          l.retired = true;
        }
      }
      afterThink(l.retired ? this::newSession : () -> next(l));
    }, invoked);
  }

  private void invalidate(Checker.Logical l) {
    String node = pick(l.route, false);
    if (node == null) {
      afterThink(() -> next(l));
      return;
    }
    String id = l.id;
    long invoked = sim.nanos();
    send(node, new Request(Kind.INVALIDATE, id, l.route, null, 0, null), response -> {
      switch (response.status()) {
        case OK -> {
          checker.served(id, invoked, "a logout");
          if (!response.alone()) { // ended on one node only, a merge may bring it back
            checker.neverServeAgain(id, "invalidated by a logout answered 200");
            givenUp.add(id);
          }
        }
        case NOT_FOUND -> notFound(l, id, invoked);
        default -> l.mayBeGone = true;
      }
      l.retired = true;
      afterThink(this::newSession);
    }, invoked);
  }

  /** An attacker (or a stale tab) sends an id that was given up: it must not be served. */
  private void probe(String id) {
    String node = pick(null, true);
    if (node == null) {
      return;
    }
    long invoked = sim.nanos();
    send(node, new Request(Kind.READ, id, null, "a", 0, null), response -> {
      if (response.status() == Status.OK) {
        checker.served(id, invoked, "a replayed id");
      }
    }, invoked);
  }

  private void notFound(Checker.Logical l, String id, long invoked) {
    if (l.exists && !l.mayBeGone && !l.retired) {
      checker.violation(Checker.Kind.LOST_SESSION, l + ": id " + id + " found nowhere, though a 200 acknowledged the session: a lost session");
    }
    l.retired = true;
  }

  /** The final read of a key after the cluster settled; {@code attempts} more if it is unavailable. */
  void finalRead(Checker.Logical l, String key, int attempts) {
    String node = pick(l.route, false);
    if (node == null) {
      checker.violation(Checker.Kind.UNAVAILABLE_AFTER_SETTLE, l + ": no node up for the final read");
      return;
    }
    long invoked = sim.nanos();
    send(node, new Request(Kind.READ, l.id, l.route, key, 0, null), response -> {
      if (response.status() == Status.OK) {
        l.route = node;
        long floor = l.floor(key, invoked);
        long got = response.value() == null ? -1 : response.value();
        if (got < floor) {
          checker.violation(Checker.Kind.LOST_WRITE, l + " final read " + key + "=" + (got < 0 ? "none" : got) + " on " + node + ", but " + floor
              + " was acknowledged: a lost write");
        }
      } else if (response.status() == Status.NOT_FOUND) {
        notFound(l, l.id, invoked);
      } else if (attempts > 0) {
        sim.after(sim.millisBetween(500, 1000), "final read again", () -> finalRead(l, key, attempts - 1));
      } else {
        checker.violation(Checker.Kind.UNAVAILABLE_AFTER_SETTLE, l + ": still unavailable 10 s after the cluster settled: " + response.detail());
      }
    }, invoked);
  }

  private void afterThink(Runnable next) {
    sim.after(sim.millisBetween(0, 300), "think", next);
  }

  /** A sticky balancer: the session's route while its process runs, else (or when told) any node whose process runs. */
  private String pick(String route, boolean elsewhere) {
    if (route != null && !elsewhere && nodes.get(route).up()) {
      return route;
    }
    List<String> up = new ArrayList<>();
    for (SimNode n : nodes.values()) {
      if (n.up()) {
        up.add(n.name);
      }
    }
    return up.isEmpty() ? null : up.get(sim.random().nextInt(up.size()));
  }

  /**
   * Sends {@code request} to {@code node}: refused at once if its process is not running (the client then tries
   * another), otherwise served on an actor. {@code done} gets the answer — unknown at the client's timeout or when the
   * node dies under it — but only once the request ended on the node (see the class comment).
   */
  private void send(String node, Request request, Consumer<Response> done, long invoked) {
    counts.requests++;
    SimNode target = nodes.get(node);
    if (!target.up()) {
      counts.refused++;
      String other = pick(null, true);
      if (other == null || other.equals(node)) {
        sim.after(sim.millisBetween(200, 500), "refused", () -> done.accept(Response.unavailable("connection refused")));
      } else {
        send(other, request, done, invoked);
      }
      return;
    }
    Open open = new Open(node, request, done);
    this.open.add(open);
    sim.after(CLIENT_TIMEOUT_NANOS, "client timeout", () -> open.answer(Response.unavailable("no answer within 10 s")));
    sim.afterOn(node, sim.millisBetween(0, 2), "request", () -> sim.actors().start(node, node + "-request", () -> {
      Response response;
      try {
        response = target.serve(request);
      } catch (Actors.Unwind died) {
        sim.after(0, "connection reset", () -> open.reset());
        throw died;
      }
      sim.after(sim.millisBetween(0, 2), "response", () -> {
        open.answer(response);
        open.end();
      });
    }));
  }

  /** {@code node}'s process died: what it had not answered is reset (and has ended: it runs nowhere now). */
  void nodeDied(String node) {
    for (Open o : new ArrayList<>(open)) {
      if (o.node.equals(node)) {
        o.reset();
      }
    }
  }

  private final List<Open> open = new ArrayList<>();

  /** A request sent and not yet ended on its node. */
  private final class Open {
    final String node;
    final Request request;
    final Consumer<Response> done;
    Response answered;
    boolean ended;

    Open(String node, Request request, Consumer<Response> done) {
      this.node = node;
      this.request = request;
      this.done = done;
    }

    void answer(Response response) {
      if (answered == null) {
        answered = response;
      }
    }

    void reset() {
      answer(Response.unavailable("connection reset"));
      end();
    }

    void end() {
      if (ended) {
        return;
      }
      ended = true;
      open.remove(this);
      Response r = answered;
      switch (r.status()) {
        case OK -> counts.ok++;
        case UNKNOWN -> counts.unknown++;
        case NOT_FOUND -> counts.notFound++;
        default -> { }
      }
      sim.trace().add("client " + request.kind() + " " + request.sessionId()
          + (request.key() == null ? "" : " " + request.key())
          + (request.kind() == Kind.WRITE || request.kind() == Kind.CREATE ? "=" + request.value() : "")
          + (request.newId() == null ? "" : " -> " + request.newId()) + " @" + node + ": " + r.status()
          + (r.value() == null ? "" : " " + r.value()) + (r.detail().isEmpty() ? "" : " (" + r.detail() + ")"));
      done.accept(r);
    }
  }
}
