package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every drill x every scope x SYNC and ASYNC ({@link Drill#fullModes()}: the drills of "a 200 means two copies" in
 * SYNC, logout-sticks in both) x every load balancer installed: over an hour. Behind a flag:
 * {@code ./mvnw -B verify -pl failover-tests -am -Dtandem.drills=full} (or {@code ./tandem drill --full}).
 */
@EnabledIfSystemProperty(named = "tandem.drills", matches = "full", disabledReason = "the full drill matrix runs with -Dtandem.drills=full")
class FullDrillMatrixIT {

  static Stream<Arguments> matrix() {
    List<String> balancers = new ArrayList<>(List.of("sticky"));
    HaproxyBalancer.installedVersion().ifPresent(v -> balancers.add("haproxy"));
    HttpdBalancer.installedVersion().ifPresent(v -> balancers.add("httpd"));
    List<Arguments> all = new ArrayList<>();
    for (Drill drill : Drill.values()) {
      for (String balancer : balancers) {
        for (String scope : List.of("SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE")) {
          for (String mode : drill.fullModes()) {
            all.add(Arguments.of(drill, scope, mode, balancer));
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}")
  @MethodSource("matrix")
  void drill(Drill drill, String scope, String mode, String balancer) throws Exception {
    if (drill.needsNamespaces()) {
      var unavailable = NetworkNamespaces.unavailableReason();
      assumeTrue(unavailable.isEmpty(), () -> "The partition drill is skipped: " + unavailable.orElse(""));
    }
    DrillReport report = DrillRun.run(drill, DrillRun.settings(scope, mode, balancer, 9, 30));

    assertThat(report.verdict().acknowledged()).isGreaterThan(0);
    assertThat(report.passed()).as(report.toHuman()).isTrue();
  }

  /** Proof that rogue-member can fail: a third node with the cluster's own secret joins, and the drill says so. */
  @Test
  void rogueMemberWithTheRightSecret_isReportedAsAMember() throws Exception {
    DrillSettings settings = DrillRun.settings("MODIFIED_ATTRIBUTE", "SYNC", "sticky", 6, 20);
    DrillReport report = new DrillRunner(settings, true).run(Drill.ROGUE_MEMBER);
    settings.progress().println(report.toHuman());

    assertThat(report.passed()).isFalse();
    assertThat(report.violations()).as(report.toHuman())
        .anyMatch(v -> v.contains("listed " + RogueMember.ROUTE + " in Members") && v.contains("became a member"))
        .anyMatch(v -> v.startsWith(RogueMember.ROUTE + "'s context started"));
  }
}
