package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The drills of the test command: every drill once on real Tomcat processes, the three scopes spread over them,
 * SYNC (which must lose nothing and break no invariant; hang-patient runs with the full matrix), one ASYNC kill run
 * (whose losses are reported, not failed) and logout-sticks in ASYNC (which fails on a resurrection), the
 * partition drill where root and {@code ip netns} are available, rogue-member (a node with another sharedSecret),
 * rolling-upgrade (every node replaced by the next protocol version), and one run
 * each through a real HAProxy and a real Apache httpd when they are installed; the partition drill and those two are
 * skipped, saying why, where they cannot run. {@code FullDrillMatrixIT} runs every combination.
 */
class QuickDrillsIT {

  @ParameterizedTest(name = "{0} {1} SYNC")
  @CsvSource({
      "KILL_OWNER, MODIFIED_ATTRIBUTE",
      "KILL_BUDDY, SESSION",
      "TWO_FAILURES, MODIFIED_SESSION",
      "HANG_OWNER, MODIFIED_ATTRIBUTE",
      "ROLLING_RESTART, SESSION",
      "FORM_LOGIN, MODIFIED_SESSION",
      "PARALLEL_REQUESTS, MODIFIED_ATTRIBUTE",
      "WRITERS_STORM, SESSION",
      "BIG_PAGES, MODIFIED_ATTRIBUTE"
  })
  void syncDrill_losesNothingAndBreaksNoInvariant(Drill drill, String scope) throws Exception {
    DrillReport report = DrillRun.run(drill, DrillRun.settings(scope, "SYNC", "sticky", 6, 20));

    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().examples()).as(report.toHuman()).isEmpty();
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /**
   * Two applications per node on one Tandem runtime (the Manager in conf/context.xml), half the users in each, and the
   * owner of a third of each application's sessions SIGKILLed: every 200 of either application survives, in its own.
   */
  @Test
  void twoApps_sync_bothApplicationsLoseNothingWhenTheOwnerIsKilled() throws Exception {
    DrillReport report = DrillRun.run(Drill.TWO_APPS, DrillRun.settings("MODIFIED_SESSION", "SYNC", "sticky", 6, 20));

    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().examples()).as(report.toHuman()).isEmpty();
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /**
   * Values Tandem must replicate or refuse, never answer 200 and lose: most of the poison drill's writes may rightly
   * be refused (400) or unknown (500), so it acknowledges fewer than the other drills.
   */
  @Test
  void poisonValues_sync_every200SurvivesAndTheCustomPrincipalStaysLoggedIn() throws Exception {
    DrillReport report = DrillRun.run(Drill.POISON_VALUES, DrillRun.settings("MODIFIED_ATTRIBUTE", "SYNC", "sticky", 6, 20));

    assertThat(report.verdict().acknowledged()).isGreaterThan(20);
    assertThat(report.verdict().examples()).as(report.toHuman()).isEmpty();
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /**
   * A node with another sharedSecret starts beside two nodes serving writes, then the owner of every session is
   * SIGKILLed: the rogue never enters their view nor holds a copy, its context fails naming the secret, and every 200
   * is on the survivor.
   */
  @Test
  void rogueMember_sync_isRefusedAndTheOwnersKillLosesNothing() throws Exception {
    DrillReport report = DrillRun.run(Drill.ROGUE_MEMBER, DrillRun.settings("MODIFIED_ATTRIBUTE", "SYNC", "sticky", 6, 20));

    assertThat(report.violations()).as(report.toHuman()).isEmpty();
    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /**
   * Every node replaced under load by the same jar claiming the next protocol version, one of them SIGKILLed mid-way:
   * every connection speaks what its two ends share after each step, nobody is refused, and every 200 survives.
   */
  @Test
  void rollingUpgrade_sync_speaksTheSharedVersionThroughoutAndLosesNothing() throws Exception {
    DrillReport report = DrillRun.run(Drill.ROLLING_UPGRADE, DrillRun.settings("MODIFIED_SESSION", "SYNC", "sticky", 6, 20));

    assertThat(report.violations()).as(report.toHuman()).isEmpty();
    // The version every node claims once raised: the build's highest plus one (6 while the build spoke 5, 7 from 6).
    String raised = report.notes().stream().filter(note -> note.startsWith("the build speaks protocol version"))
        .map(note -> note.substring(note.lastIndexOf('=') + 1)).findFirst().orElseThrow();
    assertThat(report.notes()).as(report.toHuman()).anySatisfy(note -> assertThat(note)
        .startsWith("protocol versions after n3 came back raised").contains("n1=" + raised + ", n2=" + raised));
    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /** Invalidation wins in both modes: ASYNC, which reports its lost writes as numbers, fails on a resurrection. */
  @Test
  void logoutSticks_async_noLoggedOutSessionIsFoundAgain() throws Exception {
    DrillReport report = DrillRun.run(Drill.LOGOUT_STICKS, DrillRun.settings("MODIFIED_SESSION", "ASYNC", "sticky", 6, 20));

    assertThat(report.verdict().sessionsResurrected()).as(report.toHuman()).isZero();
    assertThat(report.passed()).as(report.toHuman()).isTrue();
  }

  @Test
  void partitionOfTheOwner_sync_losesNothingAndItsStaleCopiesDoNotWin() throws Exception {
    var unavailable = NetworkNamespaces.unavailableReason();
    assumeTrue(unavailable.isEmpty(), () -> "The partition drill is skipped: " + unavailable.orElse(""));

    DrillReport report = DrillRun.run(Drill.PARTITION, DrillRun.settings("SESSION", "SYNC", "sticky", 6, 20));

    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  @Test
  void asyncKillOwner_reportsItsLossesAsNumbers() throws Exception {
    DrillReport report = DrillRun.run(Drill.KILL_OWNER, DrillRun.settings("MODIFIED_SESSION", "ASYNC", "sticky", 6, 20));

    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.passed()).isTrue();
    assertThat(report.toJson()).contains("\"lost\"", "\"versionsWentBack\"", "\"protectedAgainMillis\"");
  }

  @Test
  void killOwnerThroughARealHaproxy_sync_losesNothing() throws Exception {
    assumeTrue(HaproxyBalancer.installedVersion().isPresent(),
        "haproxy is not installed (Debian: apt-get install haproxy; .ci/run installs it): the HAProxy drill is skipped");

    DrillReport report = DrillRun.run(Drill.KILL_OWNER, DrillRun.settings("MODIFIED_ATTRIBUTE", "SYNC", "haproxy", 6, 20));

    assertThat(report.balancer()).startsWith("HAProxy");
    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }

  /** docs/tomcat.md's httpd example ({@link HttpdBalancer}) in front of the nodes while the owner is SIGKILLed. */
  @Test
  void killOwnerThroughARealHttpd_sync_losesNothing() throws Exception {
    assumeTrue(HttpdBalancer.installedVersion().isPresent(),
        "apache2 is not installed (Debian: apt-get install apache2; .ci/run installs it): the Apache httpd drill is skipped");

    DrillReport report = DrillRun.run(Drill.KILL_OWNER, DrillRun.settings("MODIFIED_ATTRIBUTE", "SYNC", "httpd", 6, 20));

    assertThat(report.balancer()).startsWith("Apache httpd");
    assertThat(report.verdict().acknowledged()).isGreaterThan(60);
    assertThat(report.verdict().clean()).as(report.toHuman()).isTrue();
  }
}
