package io.tandem.drill;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks the app-redeploy drill's evolved session class, beside {@link HistoryChecker} (which checks the String
 * attributes, {@code seq}, the sessions and the logins). Pure: the drill records and reads.
 *
 * <p>Release 1 of the application's {@code Profile} has the fields {@code id}, {@code nickname} and {@code visits};
 * release 2 drops {@code nickname} and adds {@code badge}, which its no-arg constructor sets to {@code none} and its
 * {@code of} to {@code badge-<visits>}. Each release shows a profile as {@code r<release>:<id>:<visits>:<nickname or
 * badge>}. A write numbered n that stores a profile stores {@code of(<its value>, n)}. So, for the profile a session
 * holds since its last acknowledged profile write W (or a later one of unknown outcome, which may have happened):
 *
 * <ul>
 *   <li>release 1 reads {@code r1:<id>:<n>:nick-<n>}, or {@code r1:<id>:<n>:null} once the value went through
 *       release 2 (which has no nickname to write);
 *   <li>release 2 reads {@code r2:<id>:<n>:none} when release 1 wrote it: the removed field is gone, the added one at
 *       its default; {@code r2:<id>:<n>:badge-<n>} or {@code ...:none} when release 2 wrote it.
 * </ul>
 *
 * Every acknowledged write's answer (the profile as the release that served it read it) and every final read must
 * show one of those; the final reads must be release 2's. A profile missing where one was acknowledged is a lost value
 * (one the node could not read is dropped alone, and this is where that shows), unless a later write answered 500
 * (not replicated) may have dropped it. Every acknowledged write must show the principal of the account's first one.
 */
final class ProfileChecker {
  private static final int MAX_EXAMPLES = 10;

  /**
   * What one write's answer said.
   *
   * @param setProfile whether the write stored a profile
   * @param release the release that answered it, 0 without an application answer
   * @param profile the session's profile as that release read it after the write ("null": none), "" without an answer
   * @param principal the principal the page showed, "" without an answer
   */
  record Echo(int account, long seq, boolean setProfile, int release, String profile, String principal) {}

  /**
   * The verdict on the profiles.
   *
   * @param answersChecked acknowledged writes whose answer showed a profile that was checked
   * @param finalChecked final reads whose profile was checked
   * @param finalWrittenByRelease final profiles checked, by the release that wrote the last acknowledged one
   * @param violations each broken rule, in words (at most ten), and the count of each kind
   */
  record Result(int answersChecked, int finalChecked, Map<Integer, Integer> finalWrittenByRelease, List<String> violations) {}

  private ProfileChecker() {}

  /** @param finalRelease the release every node runs at the end */
  static Result check(List<Operation> history, List<Echo> echoes, Map<Integer, AppResponse> finalReads, int finalRelease) {
    Map<Integer, Map<Long, Echo>> byAccount = new TreeMap<>();
    for (Echo echo : echoes) {
      byAccount.computeIfAbsent(echo.account(), a -> new TreeMap<>()).put(echo.seq(), echo);
    }
    Map<Integer, List<Operation>> writes = history.stream().filter(o -> o.kind() == Operation.Kind.WRITE)
        .collect(Collectors.groupingBy(Operation::account, TreeMap::new, Collectors.toList()));
    List<String> examples = new ArrayList<>();
    int answersChecked = 0;
    int finalChecked = 0;
    int wrongAnswers = 0;
    int wrongFinal = 0;
    int principalChanged = 0;
    Map<Integer, Integer> writtenBy = new TreeMap<>();
    for (Map.Entry<Integer, List<Operation>> entry : writes.entrySet()) {
      int account = entry.getKey();
      Map<Long, Echo> said = byAccount.getOrDefault(account, Map.of());
      List<Operation> ops = entry.getValue().stream().sorted(Comparator.comparingLong(Operation::seq)).toList();
      String principal = null;
      for (Operation write : ops) {
        Echo echo = said.get(write.seq());
        if (!write.acknowledged() || echo == null) {
          continue;
        }
        if (principal == null) {
          principal = echo.principal();
        } else if (!principal.equals(echo.principal())) {
          principalChanged++;
          example(examples, "account " + account + ": write " + write.seq() + " on " + write.node() + " (release " + echo.release()
              + ") shows principal " + echo.principal() + ", the first showed " + principal);
        }
        List<Candidate> candidates = candidates(ops, said, write.seq());
        if (candidates.isEmpty()) {
          continue;
        }
        answersChecked++;
        if (!matches(echo.profile(), echo.release(), candidates)) {
          wrongAnswers++;
          example(examples, "account " + account + ": write " + write.seq() + " on " + write.node() + " (release " + echo.release()
              + ") read the profile as " + echo.profile() + ", expected " + expected(echo.release(), candidates));
        }
      }
      AppResponse last = finalReads.getOrDefault(account, AppResponse.NONE);
      List<Candidate> candidates = candidates(ops, said, Long.MAX_VALUE);
      if (last.kind() != AppResponse.Kind.SESSION || candidates.isEmpty()) {
        continue; // a session gone at the end is HistoryChecker's to count
      }
      finalChecked++;
      String found = last.attributes().getOrDefault("profile", "null");
      if (matches(found, finalRelease, candidates)) {
        writtenBy.merge(candidates.get(0).writtenBy(), 1, Integer::sum);
      } else {
        wrongFinal++;
        example(examples, "account " + account + ": the final read (release " + finalRelease + ", on " + last.node() + ") holds profile "
            + found + ", expected " + expected(finalRelease, candidates));
      }
    }
    List<String> violations = new ArrayList<>();
    if (wrongAnswers > 0) {
      violations.add(wrongAnswers + " acknowledged writes read another profile than the one acknowledged");
    }
    if (wrongFinal > 0) {
      violations.add(wrongFinal + " final reads hold another profile than the one acknowledged");
    }
    if (principalChanged > 0) {
      violations.add(principalChanged + " acknowledged writes show another principal than the account's first");
    }
    if (!violations.isEmpty()) {
      violations.addAll(examples);
    }
    return new Result(answersChecked, finalChecked, writtenBy, List.copyOf(violations));
  }

  /**
   * A profile the session may hold: the value and number of a write that stored one, and the release that wrote it
   * (0: unknown, the write's outcome is unknown); {@code mayBeAbsent} for a write answered 500 (not replicated).
   */
  private record Candidate(String id, long visits, int writtenBy, boolean mayBeAbsent) {}

  /**
   * The profiles the session may hold once write {@code upTo} was applied: the last acknowledged profile write up to
   * it and the later ones up to it of unknown outcome; none when no profile write was acknowledged.
   */
  private static List<Candidate> candidates(List<Operation> ops, Map<Long, Echo> said, long upTo) {
    Operation acknowledged = null;
    for (Operation op : ops) {
      Echo echo = said.get(op.seq());
      if (op.seq() <= upTo && op.acknowledged() && echo != null && echo.setProfile()) {
        acknowledged = op;
      }
    }
    if (acknowledged == null) {
      return List.of();
    }
    List<Candidate> candidates = new ArrayList<>();
    candidates.add(new Candidate(acknowledged.value(), acknowledged.seq(), said.get(acknowledged.seq()).release(), false));
    for (Operation op : ops) {
      Echo echo = said.get(op.seq());
      if (op.seq() > acknowledged.seq() && op.seq() <= upTo && op.outcome() == Outcome.UNKNOWN && echo != null && echo.setProfile()) {
        candidates.add(new Candidate(op.value(), op.seq(), 0, op.notReplicated()));
      }
    }
    return candidates;
  }

  private static boolean matches(String shown, int release, List<Candidate> candidates) {
    return candidates.stream().anyMatch(c -> readings(release, c).contains(shown) || c.mayBeAbsent() && "null".equals(shown));
  }

  /** What {@code release} may show for the profile of {@code candidate}. */
  private static Set<String> readings(int release, Candidate candidate) {
    String head = "r" + release + ":" + candidate.id() + ":" + candidate.visits() + ":";
    return switch (release) {
      case 1 -> Set.of(head + "nick-" + candidate.visits(), head + "null");
      case 2 -> candidate.writtenBy() == 1 ? Set.of(head + "none") : Set.of(head + "none", head + "badge-" + candidate.visits());
      default -> Set.of();
    };
  }

  private static String expected(int release, List<Candidate> candidates) {
    return candidates.stream().flatMap(c -> readings(release, c).stream().sorted()).collect(Collectors.joining(" or "));
  }

  private static void example(List<String> examples, String text) {
    if (examples.size() < MAX_EXAMPLES) {
      examples.add(text);
    }
  }
}
