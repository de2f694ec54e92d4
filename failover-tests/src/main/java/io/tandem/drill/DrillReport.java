package io.tandem.drill;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What one drill did and proved.
 *
 * @param nodes the cluster's size when the drill started
 * @param protectedAgainMillis from the last fault until every running node had a buddy and every session a copy
 *     there again; -1 if that did not happen within the drill's patience (null in the JSON)
 * @param notes what the drill's workload and faults add in words (the poison drill's answers per value kind, the
 *     time from the last logout to the kill)
 * @param violations rules the drill checks beyond the history, broken (rogue-member: the rogue entered the view,
 *     held copies, started its context; rolling-upgrade: a connection spoke another protocol version than its two ends
 *     share, or a node refused a member); any fails the drill in either mode
 */
record DrillReport(
    String drill,
    String scope,
    String mode,
    String balancer,
    int nodes,
    int users,
    List<Fault> faults,
    Verdict verdict,
    @JsonIgnore long protectedAgainMillis,
    long durationMillis,
    List<String> notes,
    List<String> violations) {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * {@code protectedAgainMillis} as the JSON gives it: null, not -1, when two copies were not seen again (one node
   * left, or not within the drill's patience), so that no report shows a raw -1.
   */
  @JsonProperty("protectedAgainMillis")
  Long protectedAgainMillisOrNull() {
    return protectedAgainMillis < 0 ? null : protectedAgainMillis;
  }

  /**
   * SYNC must lose nothing and break no invariant; ASYNC's losses are reported as numbers, not failed. Invalidation
   * wins in both modes: a session whose invalidation was acknowledged and that a node serves again fails either, and
   * so does a broken rule of the drill's own ({@link #violations}).
   */
  boolean passed() {
    return violations.isEmpty() && verdict.sessionsResurrected() == 0 && (!mode.equals("SYNC") || verdict.clean());
  }

  String outcome() {
    if (!violations.isEmpty()) {
      return "FAILED";
    }
    if (verdict.clean()) {
      return "PASSED";
    }
    return passed() ? "REPORTED (ASYNC acknowledges before the copy: losses are counted, not failed)" : "FAILED";
  }

  String toHuman() {
    String faultList = faults.stream().map(f -> f.what() + " " + f.node()
            + (f.dependents().isEmpty() ? "" : " (buddy of " + String.join(", ", new java.util.TreeSet<>(f.dependents())) + ")"))
        .collect(Collectors.joining(", then "));
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
        "Drill %s (%s, %s, %d nodes, through the %s), %d users; faults: %s%n"
            + "  writes acknowledged %d, lost %d; sessions lost %d, resurrected %d; versions gone back %d (two owners %d);"
            + " logged out %d; refused but kept %d%n"
            + "  requests %d: writes acknowledged %d, logouts acknowledged %d, requests failed %d%s, unknown %d%s;"
            + " first success after each fault %s, median %s,"
            + " every affected user served %s (waiting on the cluster, think time left out: median %s, every user %s);"
            + " from the faulted node's first refused connection %s;"
            + " two copies again %s after the last fault; %d ms in all%n"
            + "  %s",
        drill, scope, mode, nodes, balancer, users, faultList, verdict.acknowledged(), verdict.lost(), verdict.sessionsLost(),
        verdict.sessionsResurrected(), verdict.versionsWentBack(), verdict.staleOwnerWrites(), verdict.loggedOut(),
        verdict.refusedButKept(), verdict.requests(), verdict.acknowledged(), verdict.logoutsAcknowledged(),
        verdict.failedRequests(), FailureBreakdown.describe(verdict.failedByCause()),
        verdict.unknownRequests(), FailureBreakdown.describe(verdict.unknownByCause()),
        perFault(verdict.faultToFirstSuccessMillis()), perFault(verdict.faultToMedianFirstSuccessMillis()),
        perFault(verdict.faultToAllServedMillis()), perFault(verdict.faultToMedianWaitedMillis()),
        perFault(verdict.faultToAllWaitedMillis()), fromRefusal(verdict.fromFirstRefusal()),
        protectedAgainMillis < 0 ? "not seen within the drill's patience" : protectedAgainMillis + " ms", durationMillis,
        outcome()));
    notes.forEach(n -> text.append(System.lineSeparator()).append("  ").append(n));
    violations.forEach(v -> text.append(System.lineSeparator()).append("  VIOLATION: ").append(v));
    verdict.examples().forEach(e -> text.append(System.lineSeparator()).append("  - ").append(e));
    return text.toString();
  }

  /** Per fault, in order: milliseconds, or in words why there is no figure (the JSON keeps the codes). */
  static String perFault(List<Long> millis) {
    return millis.stream().map(m -> m == Verdict.NO_USER_AFFECTED ? "no user was affected"
            : m == Verdict.NOT_SERVED ? "not every affected user was served again" : m + " ms")
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * Per fault, in order: when the faulted node first refused a connection and the affected users' first successes from
   * then ("refused 62 ms after the fault: median 9 ms, every affected user 31 ms"), or in words why there is no figure.
   */
  static String fromRefusal(List<FromRefusal> perFault) {
    return perFault.stream().map(f -> {
      if (f.faultToRefusalMillis() == FromRefusal.NO_REFUSAL_SEEN) {
        return "no refused connection seen";
      }
      String refused = "refused " + f.faultToRefusalMillis() + " ms after the fault";
      if (f.medianMillis() == Verdict.NO_USER_AFFECTED) {
        return refused + ", no user was affected";
      }
      if (f.medianMillis() == Verdict.NOT_SERVED) {
        return refused + ", no affected user was served again";
      }
      return refused + ": median " + f.medianMillis() + " ms, every affected user "
          + (f.allServedMillis() == Verdict.NOT_SERVED ? "not served again" : f.allServedMillis() + " ms")
          + (f.servedBeforeRefusal() == 0 ? "" : " (" + f.servedBeforeRefusal() + " served before it, counted 0)");
    }).collect(Collectors.joining("; ", "[", "]"));
  }

  String toJson() {
    try {
      return JSON.writeValueAsString(new Json(this, passed(), outcome()));
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the drill report as JSON", e);
    }
  }

  void writeJson(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, toJson() + System.lineSeparator());
  }

  /** The JSON shape: the report and its judgement. */
  record Json(DrillReport report, boolean passed, String outcome) {}
}
