package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker must catch each kind of violation it claims to, and pass a clean history. */
class HistoryCheckerTest {
  private static final long FAULT_AT = 1_000;
  private final List<Operation> history = new ArrayList<>();

  private void write(int account, long seq, long previousSeq, String node, Outcome outcome, long at) {
    history.add(new Operation(Operation.Kind.WRITE, account, 0, 0, "id." + node, "k" + (seq % 2), "v" + seq, seq, previousSeq,
        node, outcome, false, at, at + 5));
  }

  private static AppResponse session(String listing) {
    return AppResponse.parse("session node=n2 user=null " + listing);
  }

  private Verdict check(Map<Integer, AppResponse> finalReads, Set<String> resurrected) {
    return new HistoryChecker(true).check(history, finalReads, resurrected, List.of(new Fault("SIGKILL", "n1", FAULT_AT)));
  }

  @Test
  void cleanHistory_passesAndTimesTheRecovery() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n1", Outcome.OK, 200);
    write(0, 2, -1, "", Outcome.FAILED, 1_010);
    write(0, 3, 1, "n2", Outcome.OK, 1_300);

    Verdict verdict = check(Map.of(0, session("{k0=v0, k1=v3, seq=3}")), Set.of());

    assertThat(verdict.clean()).isTrue();
    assertThat(verdict.acknowledged()).isEqualTo(3);
    assertThat(verdict.failedRequests()).isEqualTo(1);
    assertThat(verdict.faultToFirstSuccessMillis()).containsExactly(305L);
  }

  @Test
  void acknowledgedValueMissingAtTheEnd_isLost() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n1", Outcome.OK, 200);

    Verdict verdict = check(Map.of(0, session("{k0=v0, seq=1}")), Set.of());

    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.examples()).anyMatch(e -> e.contains("k1=v1"));
  }

  @Test
  void valueReplacedByALaterUnacknowledgedWrite_isNotLost() {
    write(0, 1, -1, "n1", Outcome.OK, 100);
    write(0, 3, 1, "", Outcome.UNKNOWN, 200);

    assertThat(check(Map.of(0, session("{k1=v3, seq=3}")), Set.of()).clean()).isTrue();
  }

  @Test
  void sessionGoneAtTheEnd_losesEveryAcknowledgedWrite() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n1", Outcome.OK, 200);

    Verdict verdict = check(Map.of(0, AppResponse.parse("no-session node=n2 user=null")), Set.of());

    assertThat(verdict.sessionsLost()).isEqualTo(1);
    assertThat(verdict.lost()).isEqualTo(2);
  }

  @Test
  void writeThatSawAnOlderSessionOnAnotherNode_isAVersionGoneBackByASecondOwner() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n2", Outcome.OK, 200);
    write(0, 2, 0, "n1", Outcome.OK, 300); // n1 answered from its copy before write 1

    Verdict verdict = check(Map.of(0, session("{k0=v2, k1=v1, seq=2}")), Set.of());

    assertThat(verdict.versionsWentBack()).isEqualTo(1);
    assertThat(verdict.staleOwnerWrites()).isEqualTo(1);
    assertThat(verdict.clean()).isFalse();
  }

  @Test
  void findingTheNumberOfAnEarlierUnknownWrite_isStillAVersionGoneBack() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "", Outcome.UNKNOWN, 200);
    write(0, 2, 1, "n2", Outcome.OK, 300);
    write(0, 3, 1, "n1", Outcome.OK, 400); // a copy whose last write was the unknown one: it missed write 2

    Verdict verdict = check(Map.of(0, session("{k0=v2, k1=v3, seq=3}")), Set.of());

    assertThat(verdict.versionsWentBack()).isEqualTo(1);
    assertThat(verdict.staleOwnerWrites()).isEqualTo(1);
  }

  @Test
  void finalSessionOlderThanTheLastAcknowledgedWrite_wentBack() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 2, 0, "n1", Outcome.OK, 200);

    Verdict verdict = check(Map.of(0, session("{k0=v2, seq=0}")), Set.of());

    assertThat(verdict.versionsWentBack()).isEqualTo(1);
    assertThat(verdict.staleOwnerWrites()).isZero();
  }

  @Test
  void resurrectedSession_isCounted() {
    write(0, 0, -1, "n1", Outcome.OK, 100);

    Verdict verdict = check(Map.of(0, session("{k0=v0, seq=0}")), Set.of("old.n1"));

    assertThat(verdict.sessionsResurrected()).isEqualTo(1);
    assertThat(verdict.clean()).isFalse();
  }

  @Test
  void writesOfAnInvalidatedGeneration_areNotExpectedAtTheEnd() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    history.add(new Operation(Operation.Kind.INVALIDATE, 0, 0, 0, "old.n1", "", "", -1, -1, "n1", Outcome.OK, false, 150, 160));
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 1, "old.n1", "k1", "v1", 1, -1, "n1", Outcome.OK, false, 200, 210));

    assertThat(check(Map.of(0, session("{k1=v1, seq=1}")), Set.of()).clean()).isTrue();
  }

  @Test
  void loginPageToALoggedInUser_isCounted() {
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 0, "id.n1", "k0", "v0", 0, -1, "", Outcome.FAILED, true, 100, 110));

    assertThat(check(Map.of(0, session("{}")), Set.of()).loggedOut()).isEqualTo(1);
  }

  @Test
  void accountWhoseUsersNeverSucceededAgain_hasNoAllServedTime() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(1, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n2", Outcome.OK, 1_100);

    Verdict verdict = check(Map.of(0, session("{k0=v0, k1=v1, seq=1}"), 1, session("{k0=v0, seq=0}")), Set.of());

    assertThat(verdict.faultToFirstSuccessMillis()).containsExactly(105L);
    assertThat(verdict.faultToAllServedMillis()).containsExactly(-1L);
  }
}
