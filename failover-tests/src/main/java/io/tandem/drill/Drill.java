package io.tandem.drill;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The failover drills, each a workload and a fault schedule on a three-node cluster (rogue-member: two good nodes and
 * the rogue).
 */
enum Drill {
  KILL_OWNER("SIGKILL the first node, which owns a third of the sessions"),
  KILL_BUDDY("every session starts on the first node; SIGKILL the node holding their copies"),
  TWO_FAILURES("SIGKILL the first node, wait until every session has two copies again, SIGKILL the node that adopted its sessions"),
  HANG_OWNER("SIGSTOP the first node past failure detection, SIGCONT it, then send each of its users' next write to it with the old cookie"),
  ROLLING_RESTART("stop (SIGTERM) and restart every node in turn under load, waiting for two copies between nodes"),
  FORM_LOGIN("users log in through a FORM page, then the first node is SIGKILLed: nobody may be logged out"),
  PARALLEL_REQUESTS("four tabs per session write at once while the session's owner is SIGKILLed"),
  PARTITION("cut the first node's network off from the other nodes and the load balancer (its process runs on) past failure "
      + "detection, heal it, then send each of its users' next write to it with the old cookie; needs root and ip netns"),
  POISON_VALUES("users logged in with a custom principal store allowed values, a StringBuilder, an oversized value, an allowed "
      + "class with a final field of a refused class, lists holding a non-serializable or refused object, and a refused "
      + "class, all on the first node; SIGKILL it: every 200 is there byte for byte, and everyone is still logged in"),
  WRITERS_STORM("50 users on the first node write as fast as they are answered (no think time); SIGKILL it mid-stream"),
  HANG_PATIENT("SIGSTOP the first node, which owns every session, for 10 s while half the users keep waiting on it (60 s "
      + "client timeouts) and half move on; SIGCONT it, then send the movers' next write to it with the old cookie"),
  LOGOUT_STICKS("40 users on the first node log out together while 10 more write without pause; SIGKILL it the moment the last logout is answered and replay "
      + "every old cookie on every node: a session whose logout was answered 200 is never found again, in SYNC and ASYNC"),
  BIG_PAGES("every write is answered in a page of 20-200 KiB (chunked or with Content-Length, flushed halfway or not, an "
      + "asynchronous servlet for one in four), stored before the page's first byte or after its last: SIGSTOP the first node "
      + "past failure detection, SIGCONT it and probe it with old cookies, then SIGKILL the second node"),
  FULL_BUDDY("every session starts on the first node, whose buddy holds at most 256 KiB of backups (maxBackupBytes); its "
      + "users write 4 KiB values until the buddy's store is full and refuses the writes that would grow a copy (503); then "
      + "SIGKILL the first node: every write the full buddy acknowledged is there, and the survivors protect every session again"),
  ROLLING_UPGRADE("replace every node in turn under load by the next release, played by the same drop-in jar with its "
      + "highest protocol version raised by one (the test hook tandem.protocol.highest): SIGTERM n1, SIGKILL n2 mid-way (one "
      + "node upgraded, one not), SIGTERM n3, each started again raised, two copies between steps; the mixed cluster must "
      + "speak the older version, the upgraded one the raised version, and nobody may refuse anybody"),
  ROGUE_MEMBER("two nodes serve every session from the first; a third starts with another sharedSecret: it must never enter "
      + "their view nor hold a copy, they must show they refused it, and its context must fail naming the secret; then SIGKILL "
      + "the first node"),
  TWO_APPS("every node runs the drill application twice (/app and /app2) with the Manager in conf/context.xml, one Tandem "
      + "runtime per node; half the users write to each; SIGKILL the first node, which owns a third of each application's sessions"),
  APP_REDEPLOY("users logged in through a FORM page store a value of the application's own class; under load, every node in "
      + "turn gets the next release's WAR, whose class lost a field and gained one, two copies between nodes: nothing lost, "
      + "nobody logged out, the class's kept fields read back as written and the new one at its default");

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

  /** The nodes of the drill's cluster by default: the load balancer's, and those "two copies again" is judged on. */
  int clusterSize() {
    return this == ROGUE_MEMBER ? 2 : 3;
  }

  /**
   * Whether the drill can run on {@code nodes} nodes ({@code --nodes}). The kills of one node also run on two, where
   * the survivor's buddy is always the node that died (issue 15's slowest case); the others need their third node
   * (two failures in a row, a majority left after an outage, a rogue beside two good nodes).
   */
  boolean runsOn(int nodes) {
    return nodes == clusterSize() || (this == KILL_OWNER || this == KILL_BUDDY || this == TWO_APPS) && nodes == 2;
  }

  /**
   * The modes {@code --full} runs the drill in. The drills of "a 200 means two copies" test what SYNC promises (a 200
   * on two nodes), so they run in SYNC only; logout-sticks also in ASYNC, because invalidation wins in both modes.
   * Admitting a member does not depend on the mode, so rogue-member runs in SYNC, where its kill must lose nothing; so
   * does negotiating a protocol version (rolling-upgrade), and reading another release's values (app-redeploy).
   */
  List<String> fullModes() {
    return switch (this) {
      case POISON_VALUES, WRITERS_STORM, HANG_PATIENT, ROGUE_MEMBER, BIG_PAGES, FULL_BUDDY, ROLLING_UPGRADE, APP_REDEPLOY -> List.of("SYNC");
      default -> List.of("SYNC", "ASYNC");
    };
  }

  /**
   * Whether the drill's claim holds through a round-robin balancer as well as through the drill's sticky client.
   * full-buddy's does not: once n1 is killed, HAProxy and httpd send its users to n2 or n3 at random, and a session
   * taken over by n3 has only n2 left for a buddy, whose store the drill filled: every request for it is answered 503
   * to the end (no 200 without two copies), which the final read counts as a lost session. The sticky client sends
   * them to n2, the adopter, whose buddy has room.
   */
  boolean runsThroughExternalBalancers() {
    return this != FULL_BUDDY;
  }

  /** Why a drill runs through the sticky client only (see {@link #runsThroughExternalBalancers}). */
  String whyStickyOnly() {
    return "after the owner's kill a round-robin balancer sends half of its users to the survivor whose only possible"
        + " buddy is the full one: their sessions are answered 503 to the end (no 200 without two copies), which the"
        + " drill cannot tell from a loss";
  }

  /** The drills of the test command: each fault kind once; {@link #values()} is the full set. */
  static List<Drill> quickSet() {
    return List.of(KILL_OWNER, TWO_FAILURES, HANG_OWNER, ROLLING_RESTART, FORM_LOGIN, PARALLEL_REQUESTS, KILL_BUDDY,
        POISON_VALUES, WRITERS_STORM, ROGUE_MEMBER, BIG_PAGES, ROLLING_UPGRADE, TWO_APPS);
  }
}
