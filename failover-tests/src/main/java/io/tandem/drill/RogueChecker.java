package io.tandem.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The rogue-member drill's checker: a pure function from what the drill saw of the good nodes and of the rogue to the
 * rules it broke. A node whose {@code sharedSecret} differs from the cluster's must never enter the good nodes' view
 * nor be anyone's buddy (so it never holds a copy); the good nodes must show that they refused it; its context must
 * not start, and its log must say that the secret is why. The history of the users' writes is {@link HistoryChecker}'s.
 */
final class RogueChecker {
  /**
   * The exception that stopped the context, naming the secret as the cause: not a warning about one member, nor the
   * masked {@code sharedSecret=****} of a manager that started.
   */
  private static final Pattern SECRET_CAUSE =
      Pattern.compile("(Exception|Error)\\b.*\\bsharedSecret\\b(?!=).*\\b(differ|mismatch|wrong|refused)", Pattern.CASE_INSENSITIVE);
  private static final Pattern STARTUP_FAILED = Pattern.compile("Context \\[[^\\]]*] startup failed");
  private static final String WRONG_SECRET = "WRONG_SECRET";

  private RogueChecker() {}

  /**
   * What the drill saw.
   *
   * @param rogue the rogue's node id (its jvmRoute)
   * @param before each good node's figures just before the rogue started
   * @param goodNodes the good nodes' figures, sampled from the rogue's start to the end of the load, as they answered
   * @param rogueAnswers how the rogue answered its status page while sampled: HTTP status (0: no answer) to count
   * @param rogueFigures Tandem's figures on the rogue, each time its status page answered them (its context ran)
   * @param rogueLog the rogue's catalina log
   */
  record Observations(String rogue, List<NodeStatus> before, List<NodeStatus> goodNodes, Map<Integer, Integer> rogueAnswers,
      List<NodeStatus> rogueFigures, String rogueLog) {
    Observations {
      before = List.copyOf(before);
      goodNodes = List.copyOf(goodNodes);
      rogueAnswers = Map.copyOf(rogueAnswers);
      rogueFigures = List.copyOf(rogueFigures);
    }
  }

  /** The rules broken, in words (none: the rogue stayed out), and what the drill saw, in words. */
  record Result(List<String> violations, List<String> notes) {
    Result {
      violations = List.copyOf(violations);
      notes = List.copyOf(notes);
    }
  }

  static Result check(Observations seen) {
    String rogue = seen.rogue();
    List<String> violations = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Set<String> sampled = new TreeSet<>();
    Map<String, Integer> asMember = new TreeMap<>();
    Map<String, Integer> asBuddy = new TreeMap<>();
    Map<String, String> memberExample = new TreeMap<>();
    Map<String, Integer> namedRefused = new TreeMap<>();
    Map<String, String> refusedExample = new TreeMap<>();
    Map<String, Long> wrongSecrets = new TreeMap<>();
    Map<String, NodeStatus> lastSeen = new TreeMap<>();
    for (NodeStatus status : seen.goodNodes()) {
      String node = status.route();
      sampled.add(node);
      if (status.members().contains(rogue)) {
        asMember.merge(node, 1, Integer::sum);
        memberExample.putIfAbsent(node, "members=" + String.join(",", new TreeSet<>(status.members())) + " buddy=" + status.buddy());
      }
      if (status.buddy().equals(rogue)) {
        asBuddy.merge(node, 1, Integer::sum);
      }
      if (status.refused(rogue)) {
        namedRefused.merge(node, 1, Integer::sum);
        refusedExample.putIfAbsent(node, status.refusedMembers());
      }
      wrongSecrets.merge(node, status.refusals(WRONG_SECRET) - refusalsBefore(seen.before(), node), Math::max);
      lastSeen.put(node, status);
    }
    long samples = seen.goodNodes().size();

    if (sampled.isEmpty()) {
      violations.add("no good node answered its status page while " + rogue + " was up: nothing shows that it stayed out");
    }
    asMember.forEach((node, count) -> violations.add(node + " listed " + rogue + " in Members in " + count + " of its samples ("
        + memberExample.get(node) + "): the rogue became a member"));
    asBuddy.forEach((node, count) -> violations.add(node + " chose " + rogue + " as its buddy in " + count
        + " of its samples: it sent the rogue copies of its sessions"));
    boolean refusedSeen = !namedRefused.isEmpty() || wrongSecrets.values().stream().anyMatch(n -> n > 0);
    if (!refusedSeen && !sampled.isEmpty()) {
      violations.add("no good node's RefusedMembers named " + rogue + " and none counted a " + WRONG_SECRET
          + " refusal in RefusalsByCause: nothing shows that " + rogue + " was refused");
    }
    notes.add(String.format(Locale.ROOT, "%d samples of the good nodes' figures (%s) while %s was up: Members named it in %d,"
        + " Buddy in %d; RefusedMembers named it %s; %s refusals since it started %s", samples, String.join(", ", sampled), rogue,
        asMember.values().stream().mapToInt(Integer::intValue).sum(), asBuddy.values().stream().mapToInt(Integer::intValue).sum(),
        namedRefused.isEmpty() ? "in none" : "in " + namedRefused + (refusedExample.isEmpty() ? "" : " (" + refusedExample.values().iterator().next() + ")"),
        WRONG_SECRET, wrongSecrets));
    lastSeen.forEach((node, status) -> notes.add(String.format(Locale.ROOT, "%s's last figures: Members=%s RefusedMembers=\"%s\""
        + " RefusalsByCause=\"%s\" RefusedPeers=%d", node, String.join(",", new TreeSet<>(status.members())), status.refusedMembers(),
        status.refusalsByCause(), status.refusedPeers())));

    int answered = seen.rogueAnswers().entrySet().stream().filter(e -> e.getKey() != 0).mapToInt(Map.Entry::getValue).sum();
    if (answered == 0) {
      violations.add(rogue + "'s Tomcat never answered HTTP: the drill cannot tell that it ran at all");
    }
    if (!seen.rogueFigures().isEmpty()) {
      NodeStatus last = seen.rogueFigures().get(seen.rogueFigures().size() - 1);
      violations.add(rogue + "'s context started: its status page answered Tandem's figures " + seen.rogueFigures().size()
          + " times (last: members=" + String.join(",", new TreeSet<>(last.members())) + " buddy=" + last.buddy() + ")");
    }
    int mostBackups = seen.rogueFigures().stream().mapToInt(NodeStatus::backups).max().orElse(0);
    if (mostBackups > 0) {
      violations.add(rogue + " held copies of the good nodes' sessions: up to " + mostBackups + " backups");
    }
    notes.add(rogue + "'s status page answered " + new TreeMap<>(seen.rogueAnswers()) + " (HTTP status: times; 0 = no answer)");

    String cause = seen.rogueLog().lines().filter(line -> SECRET_CAUSE.matcher(line).find()).findFirst().orElse(null);
    if (cause == null) {
      violations.add(rogue + "'s catalina log has no line naming its sharedSecret as the reason it could not join");
    } else {
      notes.add(rogue + "'s catalina log: " + abbreviate(cause.trim(), 400));
    }
    seen.rogueLog().lines().filter(line -> STARTUP_FAILED.matcher(line).find()).findFirst()
        .ifPresent(line -> notes.add(rogue + "'s catalina log: " + abbreviate(line.trim(), 200)));
    return new Result(violations, notes);
  }

  private static long refusalsBefore(List<NodeStatus> before, String node) {
    return before.stream().filter(s -> s.route().equals(node)).mapToLong(s -> s.refusals(WRONG_SECRET)).max().orElse(0);
  }

  private static String abbreviate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max) + "...";
  }
}
