package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** "requests failed N" and "unknown N" in a drill report, broken down by cause. */
class FailureBreakdownTest {

  /** Tomcat's error page around the message Tandem gives sendError (escaped as Tomcat escapes it). */
  private static String tomcatErrorPage(int status, String message) {
    return "<!doctype html><html lang=\"en\"><head><title>HTTP Status " + status + " – Service Unavailable</title></head><body>"
        + "<h1>HTTP Status " + status + " – Service Unavailable</h1><hr class=\"line\" /><p><b>Type</b> Status Report</p>"
        + "<p><b>Message</b> " + message.replace("'", "&#39;") + "</p><p><b>Description</b> The server is currently unable to"
        + " handle the request due to a temporary overload or scheduled maintenance.</p></body></html>";
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "Tandem: node n1 was paused or cut off and sees no other member to ask where session A.n1 is"
          + "                                                                     | 503 node paused or cut off",
      "Tandem: session A.n1 had moved to another node; this request's changes were not kept, retry it"
          + "                                                                     | 503 session moved to another node",
      "Tandem: session A.n1 could not be replicated to a buddy in time; whether this request's changes are kept is unknown, retry it"
          + "                                                                     | 503 no buddy acknowledgement in time",
      "Tandem: the buddy did not acknowledge this request's invalidation or session id change in time; whether it sticks is unknown, retry it"
          + "                                                                     | 503 invalidation not acknowledged",
      "Tandem: session A.n1 could not be migrated from n2: no answer; retry     | 503 session could not be taken over now",
      "The application is not available                                        | 503 not from Tandem"
  })
  void a503_isCountedByTheReasonTandemGives(String message, String cause) {
    Answer answer = new Answer(Answer.Delivery.ANSWERED, 503, tomcatErrorPage(503, message.trim()), null, null);

    assertThat(answer.writeOutcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(answer.cause()).isEqualTo(cause.trim());
  }

  @Test
  void everyOtherFailure_hasItsOwnCause() {
    assertThat(Answer.notSent("not sent: connection refused").cause()).isEqualTo("not sent: connection refused");
    assertThat(Answer.unknown("no answer: timed out").cause()).isEqualTo("no answer: timed out");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 503, "<html><body><h1>503 Service Unavailable</h1>\nNo server is available "
        + "to handle this request.\n</body></html>", null, null).cause()).isEqualTo("503 no server available (the balancer's)");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 500, tomcatErrorPage(500, "Tandem: a session attribute this request set "
        + "cannot be replicated"), null, null).cause()).isEqualTo("500 not replicated");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 502, "", null, null).cause()).isEqualTo("502 bad gateway");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 504, "", null, null).cause()).isEqualTo("504 gateway timeout");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 400, "refused class Opaque", null, null).cause()).isEqualTo("400 value refused");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 200, "<form action=\"j_security_check\">", null, null).cause())
        .isEqualTo("200 login page");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 404, "", null, null).cause()).isEqualTo("404");
    assertThat(new Answer(Answer.Delivery.ANSWERED, 200, "ok prev=3 node=n1 user=null", null, null).cause()).isEmpty();
  }

  @Test
  void theReport_breaksDownFailedAndUnknownRequests_mostFrequentFirst() {
    List<Operation> history = new ArrayList<>();
    add(history, 0, Answer.notSent("not sent: connection refused"));
    add(history, 1, Answer.notSent("not sent: connection refused"));
    add(history, 2, new Answer(Answer.Delivery.ANSWERED, 400, "refused class Opaque", null, null));
    add(history, 3, new Answer(Answer.Delivery.ANSWERED, 503,
        tomcatErrorPage(503, "Tandem: session A.n1 could not be replicated to a buddy in time; retry it"), null, null));
    add(history, 4, Answer.unknown("no answer: timed out"));
    add(history, 5, new Answer(Answer.Delivery.ANSWERED, 200, "ok prev=-1 node=n1 user=null", null, null));

    Verdict verdict = new HistoryChecker(false).check(history, Map.of(), Set.of(), List.of());

    assertThat(verdict.failedRequests()).isEqualTo(3);
    assertThat(verdict.failedByCause()).containsExactly(Map.entry("not sent: connection refused", 2),
        Map.entry("400 value refused", 1));
    assertThat(verdict.unknownRequests()).isEqualTo(2);
    assertThat(verdict.unknownByCause()).containsExactly(Map.entry("503 no buddy acknowledgement in time", 1),
        Map.entry("no answer: timed out", 1));
    DrillReport report = new DrillReport("kill-owner", "SESSION", "SYNC", "sticky", 3, 6, List.of(), verdict, 10, 100, List.of(),
        List.of());
    assertThat(report.toHuman()).contains("requests failed 3 (not sent: connection refused 2, 400 value refused 1), unknown 2 "
        + "(503 no buddy acknowledgement in time 1, no answer: timed out 1);");
    assertThat(report.toJson()).contains("\"failedByCause\"").contains("\"not sent: connection refused\" : 2");
  }

  @Test
  void twoCopiesNotSeenAgain_isNullInTheJson_neverMinusOne() {
    Verdict verdict = new HistoryChecker(false).check(List.of(), Map.of(), Set.of(), List.of());
    DrillReport notSeen = new DrillReport("kill-owner", "SESSION", "SYNC", "sticky", 2, 6, List.of(), verdict, -1, 100,
        List.of(), List.of());
    DrillReport seen = new DrillReport("kill-owner", "SESSION", "SYNC", "sticky", 3, 6, List.of(), verdict, 480, 100,
        List.of(), List.of());

    assertThat(notSeen.toJson()).contains("\"protectedAgainMillis\" : null").doesNotContain(": -1");
    assertThat(notSeen.toHuman()).contains("two copies again not seen within the drill's patience");
    assertThat(seen.toJson()).contains("\"protectedAgainMillis\" : 480");
  }

  @Test
  void noFailures_noBreakdown() {
    assertThat(FailureBreakdown.describe(FailureBreakdown.of(List.of(), Outcome.FAILED))).isEmpty();
  }

  private static void add(List<Operation> history, int account, Answer answer) {
    history.add(new Operation(Operation.Kind.WRITE, account, 0, 0, "id.n1", "k0", "v" + account, 0, -1, answer.app().node(),
        answer.writeOutcome(), false, answer.status(), answer.cause(), 100, 110));
  }
}
