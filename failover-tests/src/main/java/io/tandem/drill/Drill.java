package io.tandem.drill;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The failover drills, each a workload and a fault schedule on a three-node cluster. */
enum Drill {
  KILL_OWNER("SIGKILL the first node, which owns a third of the sessions"),
  KILL_BUDDY("every session starts on the first node; SIGKILL the node holding their copies"),
  TWO_FAILURES("SIGKILL the first node, wait until every session has two copies again, SIGKILL the node that adopted its sessions"),
  HANG_OWNER("SIGSTOP the first node past failure detection, SIGCONT it, then send each of its users' next write to it with the old cookie"),
  ROLLING_RESTART("stop (SIGTERM) and restart every node in turn under load, waiting for two copies between nodes"),
  FORM_LOGIN("users log in through a FORM page, then the first node is SIGKILLed: nobody may be logged out"),
  PARALLEL_REQUESTS("four tabs per session write at once while the session's owner is SIGKILLed"),
  PARTITION("cut the first node's network off from the other nodes and the load balancer (its process runs on) past failure "
      + "detection, heal it, then send each of its users' next write to it with the old cookie; needs root and ip netns");

  private final String description;

  Drill(String description) {
    this.description = description;
  }

  String description() {
    return description;
  }

  /** kill-owner, hang-owner, ... as on the command line. */
  String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static Drill fromCliName(String name) {
    return Arrays.stream(values()).filter(d -> d.cliName().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no drill '" + name + "'; drills: " + Arrays.stream(values()).map(Drill::cliName).toList()));
  }

  /** Whether the drill needs network namespaces (root, {@code ip netns}); it is skipped, saying why, without. */
  boolean needsNamespaces() {
    return this == PARTITION;
  }

  /** The drills of the test command: each fault kind once; {@link #values()} is the full set. */
  static List<Drill> quickSet() {
    return List.of(KILL_OWNER, TWO_FAILURES, HANG_OWNER, ROLLING_RESTART, FORM_LOGIN, PARALLEL_REQUESTS, KILL_BUDDY);
  }
}
