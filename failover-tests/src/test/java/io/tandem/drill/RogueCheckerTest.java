package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rogue-member checker must catch a rogue that got in (as one with the cluster's secret does) and every missing
 * piece of evidence that it was kept out, and pass what a refused rogue leaves behind.
 */
class RogueCheckerTest {
  private static final String REFUSED = "n3 (could not prove the cluster's shared secret)";
  private static final String CAUSE = "org.apache.catalina.LifecycleException: Tandem could not join cluster [drill-1] as [n3]: "
      + "io.tandem.transport.membership.MemberAuthenticationException: Node n3 cannot authenticate with any running member of "
      + "its cluster (n1: refused; n2: refused). Its sharedSecret differs from theirs: set the same sharedSecret on every member.";
  private static final String STARTED = "INFO [main] io.tandem.tomcat.TandemManager.startInternal Tandem manager of context [/app] "
      + "started: cluster=drill-1 node=n3 sharedSecret=**** maxQueuedBytesPerPeer=4MiB";

  private static NodeStatus good(String route, String buddy, Set<String> members, String refusals, String refusedMembers) {
    return new NodeStatus(route, buddy, members, 9, 0, 0, refusals.isEmpty() ? 0 : 1, refusals, refusedMembers, "5", 0);
  }

  private static final List<NodeStatus> BEFORE =
      List.of(good("n1", "n2", Set.of("n1", "n2"), "", ""), good("n2", "n1", Set.of("n1", "n2"), "", ""));

  private static RogueChecker.Result check(List<NodeStatus> goodNodes, Map<Integer, Integer> rogueAnswers,
      List<NodeStatus> rogueFigures, String log) {
    return RogueChecker.check(new RogueChecker.Observations("n3", BEFORE, goodNodes, rogueAnswers, rogueFigures, log));
  }

  @Test
  void check_rogueRefusedAndItsContextFailedNamingTheSecret_passes() {
    RogueChecker.Result result = check(List.of(
            good("n1", "n2", Set.of("n1", "n2"), "WRONG_SECRET=2", REFUSED),
            good("n2", "n1", Set.of("n1", "n2"), "WRONG_SECRET=1", REFUSED),
            good("n2", "", Set.of("n2"), "WRONG_SECRET=1", REFUSED)),
        Map.of(0, 3, 404, 40), List.of(), "SEVERE [main] org.apache.catalina.core.StandardContext.startInternal\n" + CAUSE + "\n"
            + "SEVERE [main] org.apache.catalina.core.StandardContext.startInternal Context [/app] startup failed due to previous errors\n");

    assertThat(result.violations()).isEmpty();
    assertThat(result.notes()).anyMatch(n -> n.contains("Its sharedSecret differs")).anyMatch(n -> n.contains("startup failed"));
  }

  /** What a third node with the cluster's own secret looks like: the drill run with the switch must fail so. */
  @Test
  void check_rogueListedInMembersChosenAsBuddyAndServing_reportsItBecameAMember() {
    RogueChecker.Result result = check(List.of(
            good("n1", "n2", Set.of("n1", "n2"), "", ""),
            good("n1", "n3", Set.of("n1", "n2", "n3"), "", ""),
            good("n2", "n3", Set.of("n1", "n2", "n3"), "", "")),
        Map.of(200, 30), List.of(new NodeStatus("n3", "n1", Set.of("n1", "n2", "n3"), 0, 4, 0, 0, "", "", "5", 0)), STARTED);

    assertThat(result.violations()).anyMatch(v -> v.startsWith("n1 listed n3 in Members") && v.contains("became a member"))
        .anyMatch(v -> v.startsWith("n2 listed n3 in Members"))
        .anyMatch(v -> v.startsWith("n1 chose n3 as its buddy"))
        .anyMatch(v -> v.contains("nothing shows that n3 was refused"))
        .anyMatch(v -> v.startsWith("n3's context started"))
        .anyMatch(v -> v.contains("up to 4 backups"))
        .anyMatch(v -> v.contains("no line naming its sharedSecret"));
  }

  @Test
  void check_refusalCountedBeforeTheRogueOnly_reportsNoEvidenceOfRefusal() {
    List<NodeStatus> before = List.of(good("n1", "n2", Set.of("n1", "n2"), "WRONG_SECRET=5", ""));
    RogueChecker.Result result = RogueChecker.check(new RogueChecker.Observations("n3", before,
        List.of(good("n1", "n2", Set.of("n1", "n2"), "WRONG_SECRET=5", "")), Map.of(404, 5), List.of(), CAUSE));

    assertThat(result.violations()).singleElement().asString().contains("nothing shows that n3 was refused");
  }

  @Test
  void check_onlyTheWrongSecretCountRose_passes() {
    RogueChecker.Result result = check(List.of(good("n1", "n2", Set.of("n1", "n2"), "WRONG_SECRET=1", "")), Map.of(404, 5),
        List.of(), CAUSE);

    assertThat(result.violations()).isEmpty();
  }

  @Test
  void check_maskedSecretOrTooShortSecretInTheLog_isNotTheCause() {
    RogueChecker.Result result = check(List.of(good("n1", "n2", Set.of("n1", "n2"), "WRONG_SECRET=1", REFUSED)), Map.of(404, 5),
        List.of(), STARTED + "\nSEVERE Invalid Tandem configuration of context [/app]:\n  - sharedSecret: must be at least 16 bytes long\n");

    assertThat(result.violations()).singleElement().asString().contains("no line naming its sharedSecret");
  }

  @Test
  void check_onlyTheRoguesWarningAboutOneMember_isNotTheCauseOfItsContextsFailure() {
    String warning = "WARNING [tandem-auth-membership-n3] io.tandem.transport.membership.AuthenticatedMembership.onOutcome Node n3: "
        + "member n1 at 127.0.0.1:26078 is not admitted to the ring: it could not prove the shared secret: its sharedSecret and "
        + "this node's differ; probing it again with back-off";
    RogueChecker.Result result = check(List.of(good("n1", "n2", Set.of("n1", "n2"), "", REFUSED)), Map.of(404, 5), List.of(), warning);

    assertThat(result.violations()).singleElement().asString().contains("no line naming its sharedSecret");
  }

  @Test
  void check_nothingSampled_reportsThatNothingShowsTheRogueStayedOut() {
    RogueChecker.Result result = check(List.of(), Map.of(0, 10), List.of(), CAUSE);

    assertThat(result.violations())
        .anyMatch(v -> v.startsWith("no good node answered its status page"))
        .anyMatch(v -> v.contains("never answered HTTP"));
  }

  @Test
  void report_withARogueViolation_failsInEitherMode() {
    Verdict clean = new Verdict(100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of(), Map.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
    for (String mode : List.of("SYNC", "ASYNC")) {
      DrillReport report = new DrillReport("rogue-member", "SESSION", mode, "sticky client", 2, 6, List.of(), clean, -1, 0, List.of(),
          List.of("n1 listed n3 in Members in 2 of its samples (members=n1,n2,n3 buddy=n2): the rogue became a member"));

      assertThat(report.passed()).isFalse();
      assertThat(report.outcome()).isEqualTo("FAILED");
      assertThat(report.toHuman()).contains("VIOLATION: n1 listed n3 in Members");
    }
  }
}
