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
        node, outcome, false, outcome == Outcome.OK ? 200 : 0, outcome == Outcome.OK ? "" : "no answer: timed out", at, at + 5));
  }

  /** A write of {@code v<seq>} under {@code k<seq % 2>} answered {@code status} (0: no answer), its outcome as a client sees it. */
  private void write(int account, long seq, long previousSeq, String node, int status, long at) {
    Answer answer = status == 0 ? Answer.unknown("no answer: connection broke")
        : new Answer(Answer.Delivery.ANSWERED, status, status == 200 ? "ok prev=" + previousSeq + " node=" + node : "error", null, null);
    history.add(new Operation(Operation.Kind.WRITE, account, 0, 0, "id." + node, "k" + (seq % 2), "v" + seq, seq,
        status == 200 ? previousSeq : -1, status == 200 ? node : "", answer.writeOutcome(), false, status, answer.cause(), at,
        at + 5));
  }

  private void logout(int account, String sessionId, int status) {
    Answer answer = new Answer(Answer.Delivery.ANSWERED, status, status == 200 ? "ok node=n1" : "error", null, null);
    history.add(new Operation(Operation.Kind.INVALIDATE, account, 0, 0, sessionId, "", "", -1, -1, "n1", answer.writeOutcome(), false,
        status, answer.cause(), 150, 160));
  }

  private DrillReport report(String mode, Verdict verdict) {
    return new DrillReport("logout-sticks", "SESSION", mode, "sticky client", 3, 1, List.of(), verdict, 0, 0, List.of(), List.of());
  }

  private static AppResponse session(String listing) {
    return AppResponse.parse("session node=n2 user=null " + listing);
  }

  private Verdict check(Map<Integer, AppResponse> finalReads, Set<String> resurrected) {
    return new HistoryChecker(true).check(history, finalReads, resurrected, List.of(new Fault("SIGKILL", "n1", FAULT_AT)));
  }

  /** Regression: a report said "757 requests" in progress but accounted for 755 (acknowledged logouts were nowhere). */
  @Test
  void everyRequestIsAccountedFor_logoutsIncluded() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n1", Outcome.FAILED, 120);
    write(0, 2, 0, "n1", Outcome.UNKNOWN, 130);
    logout(0, "id.n1", 200);
    logout(1, "id2.n1", 503);

    Verdict verdict = check(Map.of(), Set.of());

    assertThat(verdict.requests()).isEqualTo(5);
    assertThat(verdict.acknowledged() + verdict.logoutsAcknowledged() + verdict.failedRequests() + verdict.unknownRequests())
        .isEqualTo(verdict.requests());
    assertThat(verdict.logoutsAcknowledged()).isEqualTo(1);
    assertThat(report("SYNC", verdict).toHuman()).contains("requests 5: writes acknowledged 1, logouts acknowledged 1, requests failed 1");
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

  /** A CI log shows only the examples: the one for a version gone back says what the tab was answered meanwhile. */
  @Test
  void versionGoneBack_exampleNamesTheAnswersInBetweenAndTheSessionsSentWith() {
    write(0, 0, -1, "n1", 200, 100);
    write(0, 1, -1, "n2", 503, 200);
    write(0, 2, -1, "n2", 503, 300);
    write(0, 3, -1, "", 0, 400);
    write(0, 4, -1, "n2", 200, 500); // a new, empty session

    Verdict verdict = check(Map.of(0, session("{k0=v4, seq=4}")), Set.of());

    assertThat(verdict.examples()).containsExactly("account 0: write 4 on n2 found seq -1 after write 0 was acknowledged by n1; "
        + "400 ms later; in between 3 writes answered {503 not from Tandem=2, no answer: connection broke=1}; "
        + "sent with session id.n1, then id.n2");
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
    history.add(new Operation(Operation.Kind.INVALIDATE, 0, 0, 0, "old.n1", "", "", -1, -1, "n1", Outcome.OK, false, 200, "", 150, 160));
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 1, "old.n1", "k1", "v1", 1, -1, "n1", Outcome.OK, false, 200, "", 200, 210));

    assertThat(check(Map.of(0, session("{k1=v1, seq=1}")), Set.of()).clean()).isTrue();
  }

  @Test
  void loginPageToALoggedInUser_isCounted() {
    history.add(new Operation(Operation.Kind.WRITE, 0, 0, 0, "id.n1", "k0", "v0", 0, -1, "", Outcome.FAILED, true, 200, "200 login page", 100, 110));

    assertThat(check(Map.of(0, session("{}")), Set.of()).loggedOut()).isEqualTo(1);
  }

  @Test
  void faultThatAffectedNoUser_isReportedInWords_notAsMinusOne() {
    write(0, 0, -1, "n2", Outcome.OK, 100); // the fault strikes n1, which served nobody's last write

    Verdict verdict = check(Map.of(0, session("{k0=v0, seq=0}")), Set.of());

    assertThat(verdict.faultToFirstSuccessMillis()).containsExactly(Verdict.NO_USER_AFFECTED);
    assertThat(DrillReport.perFault(verdict.faultToFirstSuccessMillis())).isEqualTo("[no user was affected]");
  }

  @Test
  void accountWhoseUsersNeverSucceededAgain_hasNoAllServedTime() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(1, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, 0, "n2", Outcome.OK, 1_100);

    Verdict verdict = check(Map.of(0, session("{k0=v0, k1=v1, seq=1}"), 1, session("{k0=v0, seq=0}")), Set.of());

    assertThat(verdict.faultToFirstSuccessMillis()).containsExactly(105L);
    assertThat(verdict.faultToAllServedMillis()).containsExactly(Verdict.NOT_SERVED);
    assertThat(DrillReport.perFault(verdict.faultToAllServedMillis())).isEqualTo("[not every affected user was served again]");
  }

  @Test
  void killOfABuddy_affectsTheUsersOfTheNodesItBackedUp_andTheMedianIsTheMiddleUsersFirstSuccess() {
    // n1 is killed; n3's buddy was n1, so n3's users waited on it too. n2's user is not affected.
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(1, 0, -1, "n3", Outcome.OK, 100);
    write(2, 0, -1, "n3", Outcome.OK, 100);
    write(3, 0, -1, "n2", Outcome.OK, 100);
    write(0, 1, 0, "n2", Outcome.OK, FAULT_AT + 10); // served 15 ms after the fault
    write(1, 1, 0, "n3", Outcome.OK, FAULT_AT + 40); // 45 ms
    write(2, 1, 0, "n3", Outcome.OK, FAULT_AT + 300); // 305 ms
    write(3, 1, 0, "n2", Outcome.OK, FAULT_AT + 1); // 6 ms, but n2's user was never affected

    Verdict verdict = new HistoryChecker(true).check(history, Map.of(), Set.of(),
        List.of(new Fault("SIGKILL", "n1", FAULT_AT, Set.of("n3"))));

    assertThat(verdict.faultToFirstSuccessMillis()).containsExactly(15L);
    assertThat(verdict.faultToMedianFirstSuccessMillis()).containsExactly(45L);
    assertThat(verdict.faultToAllServedMillis()).containsExactly(305L);
    assertThat(report("SYNC", verdict).toHuman()).contains("first success after each fault [15 ms], median [45 ms], every affected user served [305 ms]");
    // Each account's one request after the fault took 5 ms; the think time before it is left out.
    assertThat(verdict.faultToMedianWaitedMillis()).containsExactly(5L);
    assertThat(verdict.faultToAllWaitedMillis()).containsExactly(5L);
  }

  @Test
  void waitedTime_countsTheOpenPartOfARequestInFlightAtTheFault_andRetriesButNotThinkTime() {
    write(0, 0, -1, "n1", Outcome.OK, 100);
    write(0, 1, -1, "n1", 0, FAULT_AT - 2); // in flight at the fault: open until FAULT_AT + 3, then broke
    write(0, 2, -1, "n2", 503, FAULT_AT + 50); // open 5 ms, unknown
    write(0, 3, 0, "n2", Outcome.OK, FAULT_AT + 100); // open 5 ms, the first success

    Verdict verdict = check(Map.of(), Set.of());

    assertThat(verdict.faultToMedianFirstSuccessMillis()).containsExactly(105L);
    assertThat(verdict.faultToMedianWaitedMillis()).containsExactly(13L);
  }

  // ---- "a 200 means two copies": 503 and 500 are unknown, a 400 did not happen, invalidation wins ----------------

  @Test
  void retryLaterAnswer_isUnknownAndALost200StillFails() {
    write(0, 0, -1, "n1", 200, 100);
    write(0, 1, 0, "n1", 200, 200);
    write(0, 3, -1, "n1", 503, 300); // k1: unknown, after the last 200 of k1

    Verdict verdict = check(Map.of(0, session("{k1=v1, seq=1}")), Set.of()); // k0=v0 acknowledged, gone

    assertThat(verdict.unknownRequests()).isEqualTo(1);
    assertThat(verdict.retryLaterRequests()).isEqualTo(1);
    assertThat(verdict.failedRequests()).isZero();
    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.clean()).isFalse();
    assertThat(report("SYNC", verdict).passed()).isFalse();
  }

  @Test
  void retryLaterAfterTheLast200_allowsEitherValueButNotAbsence() {
    write(0, 1, -1, "n1", 200, 100);
    write(0, 3, 1, "n1", 503, 200);

    assertThat(check(Map.of(0, session("{k1=v1, seq=1}")), Set.of()).clean()).isTrue();
    assertThat(check(Map.of(0, session("{k1=v3, seq=3}")), Set.of()).clean()).isTrue();
    Verdict absent = check(Map.of(0, session("{seq=1}")), Set.of());
    assertThat(absent.lost()).isEqualTo(1);
    assertThat(absent.examples()).anyMatch(e -> e.contains("k1=v1") && e.contains("no k1"));
  }

  @Test
  void notReplicatedAfterTheLast200_allowsTheLast200TheUnknownValueOrAbsence() {
    write(0, 1, -1, "n1", 200, 100);
    write(0, 3, 1, "n1", 500, 200);

    assertThat(check(Map.of(0, session("{k1=v1, seq=3}")), Set.of()).clean()).isTrue();
    assertThat(check(Map.of(0, session("{k1=v3, seq=3}")), Set.of()).clean()).isTrue();
    Verdict absent = check(Map.of(0, session("{seq=3}")), Set.of());
    assertThat(absent.clean()).isTrue();
    assertThat(absent.notReplicatedRequests()).isEqualTo(1);
    assertThat(absent.unknownRequests()).isEqualTo(1);
  }

  @Test
  void notReplicatedBeforeALater200_doesNotExcuseItsAbsence() {
    write(0, 1, -1, "n1", 500, 100);
    write(0, 3, 1, "n1", 200, 200);

    Verdict verdict = check(Map.of(0, session("{seq=3}")), Set.of());

    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.clean()).isFalse();
  }

  @Test
  void attributeBackAtAnOlder200_isLost() {
    write(0, 1, -1, "n1", 200, 100);
    write(0, 3, 1, "n1", 200, 200); // the 200 a failover must keep

    Verdict verdict = check(Map.of(0, session("{k1=v1, seq=3}")), Set.of());

    assertThat(verdict.lost()).isEqualTo(1);
    assertThat(verdict.examples()).anyMatch(e -> e.contains("k1=v3") && e.contains("holds v1"));
  }

  @Test
  void refusedWrite_isNotAReplacementAndMustNotBeThere() {
    write(0, 1, -1, "n1", 200, 100);
    write(0, 3, 1, "n1", 400, 200); // refused: did not happen

    Verdict verdict = check(Map.of(0, session("{k1=v3, seq=1}")), Set.of());

    assertThat(verdict.failedRequests()).isEqualTo(1);
    assertThat(verdict.refusedButKept()).isEqualTo(1);
    assertThat(verdict.lost()).isEqualTo(1); // v1 was the last that happened
    assertThat(verdict.clean()).isFalse();
    assertThat(check(Map.of(0, session("{k1=v1, seq=1}")), Set.of()).clean()).isTrue();
  }

  @Test
  void sessionServedAfterALogoutAnswered200_failsSyncAndAsync() {
    logout(0, "gone.n1", 200);

    Set<String> mustStayGone = HistoryChecker.acknowledgedInvalidations(history);
    Verdict verdict = check(Map.of(), mustStayGone);

    assertThat(mustStayGone).containsExactly("gone.n1");
    assertThat(verdict.sessionsResurrected()).isEqualTo(1);
    assertThat(report("SYNC", verdict).passed()).isFalse();
    assertThat(report("ASYNC", verdict).passed()).isFalse();
  }

  @Test
  void logoutAnsweredRetryLater_isUnknownAndNotExpectedGone() {
    logout(0, "maybe.n1", 503);
    logout(1, "unanswered.n1", 200);
    history.set(1, new Operation(Operation.Kind.INVALIDATE, 1, 0, 0, "unanswered.n1", "", "", -1, -1, "", Outcome.UNKNOWN, false, 0, "no answer: timed out", 150, 160));

    assertThat(HistoryChecker.acknowledgedInvalidations(history)).isEmpty();
  }

  @Test
  void asyncLossesWithoutResurrection_areReportedNotFailed() {
    write(0, 0, -1, "n1", 200, 100);

    Verdict verdict = check(Map.of(0, session("{seq=0}")), Set.of());

    assertThat(report("ASYNC", verdict).passed()).isTrue();
    assertThat(report("SYNC", verdict).passed()).isFalse();
  }

  @Test
  void finalReadWithAnotherPrincipal_isALoggedOutUser() {
    write(0, 0, -1, "n1", 200, 100);
    write(1, 0, -1, "n1", 200, 100);
    Map<Integer, String> principals = Map.of(0, "DrillPrincipal:user0/badge-user0", 1, "DrillPrincipal:user1/badge-user1");
    Map<Integer, AppResponse> reads = Map.of(
        0, AppResponse.parse("session node=n2 user=user0 principal=DrillPrincipal:user0/badge-user0 {k0=v0, seq=0}"),
        1, AppResponse.parse("session node=n2 user=null principal=none {k0=v0, seq=0}"));

    Verdict verdict = new HistoryChecker(true, principals).check(history, reads, Set.of(), List.of());

    assertThat(verdict.loggedOut()).isEqualTo(1);
    assertThat(verdict.examples()).anyMatch(e -> e.contains("account 1") && e.contains("principal none"));
    assertThat(verdict.clean()).isFalse();
  }
}
