package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The app-redeploy drill's profile checker must pass what the evolved class may rightly show and catch what it may not. */
class ProfileCheckerTest {
  private static final String PRINCIPAL = "GenericPrincipal:user0";
  private final List<Operation> history = new ArrayList<>();
  private final List<ProfileChecker.Echo> echoes = new ArrayList<>();

  /** Write {@code seq} of account 0, value {@code u0-g0-<seq>}, answered by {@code release} (0: no answer) showing {@code profile}. */
  private void write(long seq, boolean setProfile, Outcome outcome, int status, int release, String profile) {
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 0, "id.n1", "k" + seq, "u0-g0-" + seq, seq, seq - 1, release == 0 ? "" : "n1",
        outcome, false, status, outcome == Outcome.OK ? "" : "no answer: timed out", seq * 10, seq * 10 + 5));
    echoes.add(new ProfileChecker.Echo(0, seq, setProfile, release, profile, release == 0 ? "" : PRINCIPAL));
  }

  private void acknowledged(long seq, boolean setProfile, int release, String profile) {
    write(seq, setProfile, Outcome.OK, 200, release, profile);
  }

  private ProfileChecker.Result check(String finalProfile) {
    Map<String, String> attributes = finalProfile == null ? Map.of("seq", "9") : Map.of("seq", "9", "profile", finalProfile);
    return ProfileChecker.check(history, echoes,
        Map.of(0, new AppResponse(AppResponse.Kind.SESSION, -1, "n2", "user0", PRINCIPAL, attributes)), 2);
  }

  @Test
  void check_release1ValueReadByRelease2_removedFieldGoneAddedAtItsDefault_passes() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    acknowledged(1, true, 1, "r1:u0-g0-1:1:nick-1");
    acknowledged(2, false, 2, "r2:u0-g0-1:1:none");
    acknowledged(3, false, 1, "r1:u0-g0-1:1:null"); // back on release 1 after release 2 wrote it: no nickname left

    ProfileChecker.Result result = check("r2:u0-g0-1:1:none");

    assertThat(result.violations()).isEmpty();
    assertThat(result.answersChecked()).isEqualTo(4);
    assertThat(result.finalChecked()).isEqualTo(1);
    assertThat(result.finalWrittenByRelease()).isEqualTo(Map.of(1, 1));
  }

  @Test
  void check_finalProfileWithFieldsShifted_isAViolation() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");

    ProfileChecker.Result result = check("r2:u0-g0-0:0:nick-0");

    assertThat(result.violations()).first().asString().contains("1 final reads hold another profile");
  }

  @Test
  void check_profileDroppedAsUnreadable_isAViolation() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    acknowledged(1, false, 2, "null");

    ProfileChecker.Result result = check(null);

    assertThat(result.violations()).anyMatch(v -> v.contains("1 acknowledged writes read another profile"))
        .anyMatch(v -> v.contains("1 final reads hold another profile"));
  }

  @Test
  void check_olderProfileThanTheLastAcknowledged_isAViolation() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    acknowledged(1, true, 1, "r1:u0-g0-1:1:nick-1");

    assertThat(check("r2:u0-g0-0:0:none").violations()).isNotEmpty();
  }

  @Test
  void check_laterProfileWriteOfUnknownOutcome_mayBeThere() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    write(1, true, Outcome.UNKNOWN, 0, 0, "");

    assertThat(check("r2:u0-g0-1:1:none").violations()).isEmpty();
    assertThat(check("r2:u0-g0-0:0:none").violations()).isEmpty();
  }

  @Test
  void check_releaseTwoValueKeepsItsBadge_butARelease1ValueHasNone() {
    acknowledged(0, true, 2, "r2:u0-g0-0:0:badge-0");

    assertThat(check("r2:u0-g0-0:0:badge-0").violations()).isEmpty();
    history.clear();
    echoes.clear();
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    assertThat(check("r2:u0-g0-0:0:badge-0").violations()).isNotEmpty();
  }

  @Test
  void check_anotherPrincipalAfterTheRedeploy_isAViolation() {
    acknowledged(0, true, 1, "r1:u0-g0-0:0:nick-0");
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 0, "id.n1", "k1", "u0-g0-1", 1, 0, "n2", Outcome.OK, false, 200, "", 10, 15));
    echoes.add(new ProfileChecker.Echo(0, 1, false, 2, "r2:u0-g0-0:0:none", "GenericPrincipal:user7"));

    assertThat(check("r2:u0-g0-0:0:none").violations()).anyMatch(v -> v.contains("another principal"));
  }
}
