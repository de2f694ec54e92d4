package io.tandem.core.simulation;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One schedule: a cluster of 2–5 real engines, users, and faults, all drawn from one seed, run in virtual time and
 * judged by the {@link Checker}. {@link #run} is the whole of it; the same seed gives the same run (its trace hash
 * says so).
 *
 * <p>The phases: the nodes start and settle (2 s); users work while the nemesis injects faults (20–40 s); everything
 * heals and the users stop; after {@link #SETTLE} the checker looks at every acknowledged session's copies (one owner,
 * and a copy on its buddy: the bound this run states for "back to two copies"), then reads every acknowledged key.
 */
final class Schedule {
  /** How long after the last fault healed every acknowledged session must be on two nodes again. */
  static final Duration SETTLE = Duration.ofSeconds(30);

  record Result(long seed, String setup, List<Checker.Violation> violations, String summary, long traceHash,
      String traceTail) {
    boolean passed() {
      return violations.isEmpty();
    }
  }

  private Schedule() {}

  /** Runs seed {@code seed} (scrambled: see {@link Simulation#Simulation}), the engines in SYNC mode. */
  static Result run(long seed, boolean traceMessages) {
    return run(seed, traceMessages, true, ReplicationMode.SYNC, Nemesis.CURRENT);
  }

  /**
   * Runs seed {@code seed} with the engines in {@code mode}: the same nodes, users and faults as in the other mode
   * (the mode draws nothing from the seed), judged by what that mode promises (see {@link Clients#Clients}).
   */
  static Result run(long seed, boolean traceMessages, ReplicationMode mode) {
    return run(seed, traceMessages, true, mode, Nemesis.CURRENT);
  }

  /**
   * {@link #run(long, boolean, ReplicationMode)} with the faults of nemesis {@code generation} ({@link Nemesis#CURRENT}
   * or an earlier one): a seed found under an earlier generation replays as it was found.
   */
  static Result run(long seed, boolean traceMessages, ReplicationMode mode, int generation) {
    return run(seed, traceMessages, true, mode, generation);
  }

  /** Runs a seed as it was numbered before seeds were scrambled: the regression seeds of {@link SimulationSeedsTest}. */
  static Result runLegacy(long seed, boolean traceMessages) {
    return run(seed, traceMessages, false, ReplicationMode.SYNC, Nemesis.FIRST);
  }

  private static Result run(long seed, boolean traceMessages, boolean scrambled, ReplicationMode mode, int generation) {
    Trace trace = new Trace(traceMessages, traceMessages ? 100_000 : 400);
    Simulation sim = new Simulation(seed, trace, scrambled);
    trace.attach(sim);
    int nodeCount = 2 + sim.random().nextInt(4);
    ReplicationScope scope = sim.chance(0.5) ? ReplicationScope.MODIFIED_ATTRIBUTE : ReplicationScope.SESSION;
    ReplicationConfig config = ReplicationConfig.builder()
        .mode(mode)
        .scope(scope)
        .ackTimeout(Duration.ofMillis(500))
        .settleTimeout(Duration.ofSeconds(2))
        .build();
    SimNetwork network = new SimNetwork(sim, config.maxFrameSize());
    SimMembership membership = new SimMembership(sim);
    Map<String, SimNode> nodes = new LinkedHashMap<>();
    Checker checker = new Checker(sim);
    for (int i = 1; i <= nodeCount; i++) {
      nodes.put("n" + i, new SimNode("n" + i, sim, config, checker));
    }
    boolean async = mode == ReplicationMode.ASYNC;
    Clients clients = new Clients(sim, nodes, checker, async);
    Nemesis nemesis = new Nemesis(sim, nodes, network, membership, clients, generation);
    int users = 2 + sim.random().nextInt(6);
    long faultsFrom = 3_000_000_000L;
    long faultsUntil = faultsFrom + sim.millisBetween(20_000, 40_000);
    String setup = nodeCount + " nodes, " + mode + " " + scope + ", " + users + " users, faults: " + nemesis.mix();
    trace.add("seed " + seed + ": " + setup);
    List<Checker.Violation> errors = new ArrayList<>();
    try {
      for (SimNode n : nodes.values()) {
        n.start(network, membership);
        sim.runDue();
      }
      sim.runUntil(2_000_000_000L);
      clients.start(users, faultsUntil);
      nemesis.start(faultsFrom, faultsUntil);
      sim.runUntil(faultsUntil);
      nemesis.healEverything();
      sim.runUntil(faultsUntil + SETTLE.toNanos());
      checkCopies(nodes, clients, checker, async);
      for (Checker.Logical l : clients.logicals()) {
        if (l.exists && !l.retired && !l.mayBeGone) {
          for (String key : l.acknowledged.keySet().stream().sorted().toList()) {
            clients.finalRead(l, key, 10);
          }
        } else if (async && l.createdUnbound && !l.retired && !l.mayBeGone
            && nodes.values().stream().anyMatch(n -> n.owns(l.id))) {
          clients.finalRead(l, "a", 10); // no value binds in ASYNC, but a session owned somewhere is served
        }
      }
      sim.runUntil(sim.nanos() + 15_000_000_000L);
    } catch (RuntimeException | Error e) {
      errors.add(new Checker.Violation(Checker.Kind.RUN_FAILED, sim.nanos() / 1e9, "the run failed: " + e + stack(e)));
      trace.add("FAILED " + e);
    } finally {
      sim.actors().shutdown();
    }
    List<Checker.Violation> violations = new ArrayList<>(checker.violations());
    violations.addAll(errors);
    String summary = String.format("%s; %d faults; %s; %d messages; %d events; %.1f s virtual", setup,
        nemesis.injected(), clients.counts, network.messagesSent(), sim.eventsRun(), sim.nanos() / 1e9);
    return new Result(seed, setup, violations, summary, trace.hash(), trace.tail());
  }

  /**
   * Every acknowledged session has exactly one owner, and a copy at its owner's buddy. In ASYNC, a session created
   * with a 200 may have been lost with its owner (held nowhere: no violation); one held anywhere is held to the same.
   */
  private static void checkCopies(Map<String, SimNode> nodes, Clients clients, Checker checker, boolean async) {
    for (Checker.Logical l : clients.logicals()) {
      if (!(l.exists || async && l.createdUnbound) || l.retired || l.mayBeGone) {
        continue;
      }
      List<SimNode> owners = nodes.values().stream().filter(n -> n.owns(l.id)).toList();
      if (async && owners.isEmpty()
          && nodes.values().stream().noneMatch(n -> n.up() && n.engine().backupOf(l.id).isPresent())) {
        continue; // lost with its owner before its copy went out: what ASYNC allows
      }
      if (owners.size() != 1) {
        List<String> copies = nodes.values().stream().filter(n -> n.up() && n.engine().backupOf(l.id).isPresent())
            .map(n -> n.name + " e" + n.engine().backupOf(l.id).get().epoch() + " v" + n.engine().backupOf(l.id).get().version())
            .toList();
        checker.violation(Checker.Kind.OWNERS_AFTER_SETTLE, l + " has " + owners.size() + " owners " + owners.stream().map(n -> n.name).toList()
            + " and copies " + copies + " " + SETTLE.toSeconds() + " s after the faults healed");
        continue;
      }
      SimNode owner = owners.get(0);
      Optional<String> buddy = owner.engine().buddy().map(b -> b.value());
      if (buddy.isPresent() && nodes.get(buddy.get()).engine().backupOf(l.id).isEmpty()) {
        checker.violation(Checker.Kind.NO_COPY_AFTER_SETTLE, l + " owned by " + owner.name + " has no copy on its buddy " + buddy.get() + " "
            + SETTLE.toSeconds() + " s after the faults healed");
      }
    }
  }

  private static String stack(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append("\n  caused by ").append(t);
      StackTraceElement[] frames = t.getStackTrace();
      for (int i = 0; i < Math.min(12, frames.length); i++) {
        b.append("\n    at ").append(frames[i]);
      }
    }
    return b.toString();
  }
}
