package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Failover timed from the faulted node's first refused connection: a pure function of the history and the refusals. */
class FromRefusalTest {
  private static final long FAULT_AT = 10_000;
  private final List<Operation> history = new ArrayList<>();

  /** An acknowledged write of {@code account} on {@code node}, sent at {@code at} and answered 5 ms later. */
  private void ok(int account, String node, long at) {
    history.add(new Operation(Operation.Kind.WRITE, account, 0, 0, "id." + node, "k0", "v" + at, -1, -1, node,
        Outcome.OK, false, 200, "", at, at + 5));
  }

  /** A write of {@code account} whose connection was refused at {@code at}: not sent, failed. */
  private void refused(int account, long at) {
    history.add(new Operation(Operation.Kind.WRITE, account, 0, 0, "id.n1", "k0", "r" + at, -1, -1, "", Outcome.FAILED,
        false, 0, Answer.CONNECTION_REFUSED, at, at));
  }

  /** Users 0, 1 and 2 last served by n1, user 3 by n2, before the fault. */
  private void beforeTheFault() {
    ok(0, "n1", FAULT_AT - 100);
    ok(1, "n1", FAULT_AT - 80);
    ok(2, "n1", FAULT_AT - 60);
    ok(3, "n2", FAULT_AT - 40);
  }

  @Test
  void killOfTheOwner_timesEachAffectedUserFromTheFirstRefusalAfterTheFault_medianAndMax() {
    beforeTheFault();
    refused(0, FAULT_AT + 60);
    ok(0, "n2", FAULT_AT + 70); // ends at +75: 15 ms after the refusal
    ok(1, "n2", FAULT_AT + 85); // +90: 30 ms
    ok(2, "n3", FAULT_AT + 145); // +150: 90 ms
    ok(2, "n3", FAULT_AT + 400); // a later success does not count
    ok(3, "n2", FAULT_AT + 1); // not affected
    List<Refusal> refusals = List.of(new Refusal("n1", FAULT_AT - 500), // before the fault: an earlier outage
        new Refusal("n2", FAULT_AT + 50), // another node
        new Refusal("n1", FAULT_AT + 60), new Refusal("n1", FAULT_AT + 65));

    FromRefusal times = FromRefusal.perFault(history, List.of(new Fault("SIGKILL", "n1", FAULT_AT)), refusals).get(0);

    assertThat(times).isEqualTo(new FromRefusal(60, 30, 90, 0));
    assertThat(DrillReport.fromRefusal(List.of(times)))
        .isEqualTo("[refused 60 ms after the fault: median 30 ms, every affected user 90 ms]");
  }

  @Test
  void usersServedBeforeTheRefusal_countZero_andAreCounted() {
    beforeTheFault();
    ok(3, "n3", FAULT_AT - 20); // user 3 last on n3, whose buddy was n1: affected
    ok(3, "n3", FAULT_AT + 10); // ends +15, before the refusal at +40
    ok(0, "n2", FAULT_AT + 45); // +50: 10 ms
    ok(1, "n2", FAULT_AT + 55); // +60: 20 ms
    ok(2, "n2", FAULT_AT + 95); // +100: 60 ms

    FromRefusal times = FromRefusal.perFault(history, List.of(new Fault("SIGKILL", "n1", FAULT_AT, Set.of("n3"))),
        List.of(new Refusal("n1", FAULT_AT + 40))).get(0);

    // Sorted: 0 (user 3), 10, 20, 60; the lower middle of four is the second.
    assertThat(times).isEqualTo(new FromRefusal(40, 10, 60, 1));
    assertThat(DrillReport.fromRefusal(List.of(times))).endsWith("every affected user 60 ms (1 served before it, counted 0)]");
  }

  @Test
  void aUserNeverServedAgain_leavesNoMaximum_theMedianOfThoseServedStays() {
    beforeTheFault();
    ok(0, "n2", FAULT_AT + 45);
    ok(1, "n2", FAULT_AT + 65);

    FromRefusal times = FromRefusal.perFault(history, List.of(new Fault("SIGKILL", "n1", FAULT_AT)),
        List.of(new Refusal("n1", FAULT_AT + 40))).get(0);

    assertThat(times).isEqualTo(new FromRefusal(40, 10, Verdict.NOT_SERVED, 0));
    assertThat(DrillReport.fromRefusal(List.of(times))).contains("every affected user not served again");
  }

  @Test
  void noRefusal_aHungNodeOrAnExternalBalancer_hasNoFigure() {
    beforeTheFault();
    ok(0, "n2", FAULT_AT + 3_000);

    FromRefusal times = FromRefusal.perFault(history, List.of(new Fault("SIGSTOP", "n1", FAULT_AT)), List.of()).get(0);

    assertThat(times).isEqualTo(new FromRefusal(FromRefusal.NO_REFUSAL_SEEN, FromRefusal.NO_REFUSAL_SEEN,
        FromRefusal.NO_REFUSAL_SEEN, 0));
    assertThat(DrillReport.fromRefusal(List.of(times))).isEqualTo("[no refused connection seen]");
  }

  @Test
  void noUserAffected_stillSaysWhenTheNodeRefused() {
    ok(3, "n2", FAULT_AT - 40);

    FromRefusal times = FromRefusal.perFault(history, List.of(new Fault("SIGKILL", "n1", FAULT_AT)),
        List.of(new Refusal("n1", FAULT_AT + 30))).get(0);

    assertThat(times).isEqualTo(new FromRefusal(30, Verdict.NO_USER_AFFECTED, Verdict.NO_USER_AFFECTED, 0));
    assertThat(DrillReport.fromRefusal(List.of(times))).isEqualTo("[refused 30 ms after the fault, no user was affected]");
  }

  @Test
  void aNodeFaultedTwice_eachFaultTakesTheFirstRefusalBeforeTheNextFaultOfThatNode() {
    // A rolling restart: n1 stopped, back, stopped again; it refused only during its second stop. n2's fault between
    // does not bound n1's refusals.
    beforeTheFault();
    ok(0, "n2", FAULT_AT + 100);
    List<Fault> faults = List.of(new Fault("SIGTERM", "n1", FAULT_AT), new Fault("SIGTERM", "n2", FAULT_AT + 2_000),
        new Fault("SIGTERM", "n1", FAULT_AT + 5_000));

    List<FromRefusal> times = FromRefusal.perFault(history, faults, List.of(new Refusal("n1", FAULT_AT + 5_020)));

    assertThat(times.get(0).faultToRefusalMillis()).isEqualTo(FromRefusal.NO_REFUSAL_SEEN);
    assertThat(times.get(1).faultToRefusalMillis()).isEqualTo(FromRefusal.NO_REFUSAL_SEEN);
    assertThat(times.get(2).faultToRefusalMillis()).isEqualTo(20);
  }

  @Test
  void theCheckersVerdict_carriesItPerFault_intoTheTextAndTheJson() throws Exception {
    beforeTheFault();
    refused(0, FAULT_AT + 60);
    ok(0, "n2", FAULT_AT + 70);
    ok(1, "n2", FAULT_AT + 85);
    ok(2, "n3", FAULT_AT + 145);
    List<Fault> faults = List.of(new Fault("SIGKILL", "n1", FAULT_AT));

    Verdict verdict = new HistoryChecker(false).check(history, Map.of(), Set.of(), faults,
        List.of(new Refusal("n1", FAULT_AT + 60)));
    DrillReport report = new DrillReport("kill-owner", "MODIFIED_ATTRIBUTE", "SYNC", "sticky client", 3, 4, faults,
        verdict, -1, 1_000, List.of(), List.of());

    assertThat(verdict.fromFirstRefusal()).containsExactly(new FromRefusal(60, 30, 90, 0));
    assertThat(verdict.faultToAllServedMillis()).as("from the kill, as before").containsExactly(150L);
    assertThat(report.toHuman()).contains("from the faulted node's first refused connection "
        + "[refused 60 ms after the fault: median 30 ms, every affected user 90 ms];");
    JsonNode json = new ObjectMapper().readTree(report.toJson()).get("report").get("verdict").get("fromFirstRefusal");
    assertThat(json.get(0).get("faultToRefusalMillis").asLong()).isEqualTo(60);
    assertThat(json.get(0).get("medianMillis").asLong()).isEqualTo(30);
    assertThat(json.get(0).get("allServedMillis").asLong()).isEqualTo(90);
    assertThat(json.get(0).get("servedBeforeRefusal").asInt()).isZero();
  }

  @Test
  void theClient_classesAClosedPortAsARefusal_notAsATimeoutOrABrokenConnection() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }

    Answer answer = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(1))
        .send("http://127.0.0.1:" + port, "/app/session.jsp", null, null);

    assertThat(answer.refused()).isTrue();
    assertThat(answer.delivery()).isEqualTo(Answer.Delivery.NOT_SENT);
    assertThat(Answer.unknown("no answer: connection broke").refused()).isFalse();
    assertThat(Answer.notSent("not sent: connect timed out").refused()).isFalse();
  }
}
