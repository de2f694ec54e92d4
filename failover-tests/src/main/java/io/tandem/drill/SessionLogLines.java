package io.tandem.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Tandem lines of the nodes' logs that explain a failed drill, for its report: those naming a session of the
 * checker's examples, and the ring's changes (buddies, peers gone, hand-offs). A CI run keeps only what the build
 * printed, not the run's folder: with these lines a reader of the CI log can follow the session that went wrong from
 * node to node without the files.
 */
final class SessionLogLines {
  /** A Tomcat session id without its route, as the drill's application makes them. */
  private static final Pattern SESSION_ID = Pattern.compile("\\b[0-9A-F]{32}\\b");
  /** What the engine logs about the ring and departures: the context of a session's path. */
  private static final Pattern RING = Pattern.compile("RingTracker|GracefulHandoff|Adoption|LeftoverCopies|Handovers");

  /**
   * Tomcat's log lines start with the time of day: sorting lines prefixed with their node's name by what follows it
   * interleaves the nodes in time order.
   */
  private static final Comparator<String> BY_TIME = Comparator.comparing(l -> l.substring(l.indexOf(": ") + 2));

  private SessionLogLines() {}

  /**
   * @param nodeDirs each node's folder (its {@code logs} below it), by node name
   * @param examples the checker's examples; the session ids in them are looked for
   * @param max most lines returned: those naming the sessions first, then the ring's changes, each in time order
   */
  static List<String> explaining(List<Path> nodeDirs, List<String> examples, int max) {
    Set<String> ids = new LinkedHashSet<>();
    for (String example : examples) {
      Matcher m = SESSION_ID.matcher(example);
      while (m.find()) {
        ids.add(m.group());
      }
    }
    List<String> naming = new ArrayList<>();
    List<String> ring = new ArrayList<>();
    for (Path dir : nodeDirs) {
      String node = dir.getFileName().toString();
      for (String line : tandemLines(dir.resolve("logs"))) {
        if (ids.stream().anyMatch(line::contains)) {
          naming.add(node + ": " + line);
        } else if (RING.matcher(line).find()) {
          ring.add(node + ": " + line);
        }
      }
    }
    naming.sort(BY_TIME);
    ring.sort(BY_TIME);
    List<String> lines = new ArrayList<>(naming.subList(0, Math.min(max, naming.size())));
    lines.addAll(ring.subList(0, Math.min(max - lines.size(), ring.size())));
    return lines;
  }

  /**
   * The last {@code max} Tandem lines of the nodes' logs, interleaved in time order, each prefixed with its node's
   * name: what a failed integration test quotes when it has no session of its own to follow.
   */
  static List<String> last(List<Path> nodeDirs, int max) {
    List<String> all = new ArrayList<>();
    for (Path dir : nodeDirs) {
      String node = dir.getFileName().toString();
      tandemLines(dir.resolve("logs")).forEach(line -> all.add(node + ": " + line));
    }
    all.sort(BY_TIME);
    return List.copyOf(all.subList(Math.max(0, all.size() - max), all.size()));
  }

  /** The lines of Tandem's own loggers in a node's catalina logs, shortened to their message. */
  private static List<String> tandemLines(Path logs) {
    if (!Files.isDirectory(logs)) {
      return List.of();
    }
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(logs)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("catalina")).sorted().toList()) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (line.contains("io.tandem.") && !line.contains("io.tandem.shaded.")) {
            lines.add(shorten(line));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the logs in " + logs, e);
    }
    return lines;
  }

  /** "27-Nov-2026 12:29:41.333 WARNING [thread] io.tandem.core.replicator.RingTracker.peerRefused text" → time, level, class.method, text. */
  static String shorten(String line) {
    String noDate = line.replaceFirst("^\\d{2}-\\w{3}-\\d{4} ", "");
    String noPackage = noDate.replaceFirst("io\\.tandem\\.[a-z.]*\\.", "");
    return noPackage.length() > 400 ? noPackage.substring(0, 400) + "..." : noPackage;
  }
}
