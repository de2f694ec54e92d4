package io.tandem.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The folders the drills' Tomcat nodes run in, one per {@code ./tandem drill} run, named after the time it started
 * ({@code drill-runs/20261124-160512/}), so a later run does not overwrite an earlier one; the run's reports carry
 * the same name. Each folder holds three or more CATALINA_BASEs with their logs (about 70 MB a drill), so the
 * oldest are pruned to the newest few.
 */
final class RunFolders {
  /** UTC, to the second: names sort in the order the runs started. */
  static final DateTimeFormatter NAME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private RunFolders() {}

  /** Creates the folder of a run that starts {@code now} under {@code parent}; {@code -2}, ... if the name is taken. */
  static Path create(Path parent, Instant now) throws IOException {
    Files.createDirectories(parent);
    String name = NAME.format(now);
    for (int n = 1; ; n++) {
      try {
        return Files.createDirectory(parent.resolve(n == 1 ? name : name + "-" + n));
      } catch (FileAlreadyExistsException taken) {
        // another run started within the same second: the next suffix
      }
    }
  }

  /**
   * What {@link #prune} removed.
   *
   * @param removed the folders' names, oldest first
   * @param bytes what they held
   * @param failures folders that could not be removed (entirely), with why
   */
  record Pruned(List<String> removed, long bytes, List<String> failures) {
    /** One line for the console, or "" when nothing was pruned. */
    String describe(Path parent, int keep) {
      if (removed.isEmpty() && failures.isEmpty()) {
        return "";
      }
      String line = "Pruned " + removed.size() + " old run folder" + (removed.size() == 1 ? "" : "s") + " under " + parent
          + " (" + megabytes(bytes) + "; keeping the newest " + keep + ", --keep-runs)"
          + (removed.isEmpty() ? "" : ": " + String.join(", ", removed));
      return failures.isEmpty() ? line : line + "; could not remove " + String.join(", ", failures);
    }

    private static String megabytes(long bytes) {
      return bytes < 1024 * 1024 ? bytes / 1024 + " KB" : bytes / (1024 * 1024) + " MB";
    }
  }

  /**
   * Removes every folder under {@code parent} except the newest {@code keep} (by modification time, then name), and
   * never {@code current}. Folders of runs from before this layout (one per drill) count as runs too.
   */
  static Pruned prune(Path parent, int keep, Path current) throws IOException {
    if (keep < 1) {
      throw new IllegalArgumentException("keep " + keep + ": must be at least 1");
    }
    List<Path> folders = new ArrayList<>();
    if (Files.isDirectory(parent)) {
      try (Stream<Path> entries = Files.list(parent)) {
        entries.filter(Files::isDirectory).forEach(folders::add);
      }
    }
    folders.sort(Comparator.comparing(RunFolders::modified).thenComparing(p -> p.getFileName().toString()).reversed());
    List<Path> old = new ArrayList<>(folders.subList(Math.min(keep, folders.size()), folders.size()));
    old.removeIf(p -> current != null && p.toAbsolutePath().normalize().equals(current.toAbsolutePath().normalize()));
    List<String> removed = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    long bytes = 0;
    Collections.reverse(old); // oldest first
    for (Path folder : old) {
      long size = size(folder);
      try {
        deleteTree(folder);
        removed.add(folder.getFileName().toString());
        bytes += size;
      } catch (IOException | UncheckedIOException e) {
        failures.add(folder.getFileName() + " (" + e.getMessage() + ")");
        bytes += size - size(folder);
      }
    }
    return new Pruned(removed, bytes, failures);
  }

  private static FileTime modified(Path folder) {
    try {
      return Files.getLastModifiedTime(folder);
    } catch (IOException e) {
      return FileTime.fromMillis(0); // gone or unreadable: the oldest, so pruned (or reported) first
    }
  }

  /** Bytes of the regular files under {@code folder}; symbolic links are not followed. */
  private static long size(Path folder) {
    if (!Files.exists(folder)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(folder)) {
      return files.mapToLong(f -> {
        try {
          BasicFileAttributes attributes = Files.readAttributes(f, BasicFileAttributes.class,
              java.nio.file.LinkOption.NOFOLLOW_LINKS);
          return attributes.isRegularFile() ? attributes.size() : 0;
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
  }

  /** Deletes {@code folder} and everything in it, deepest first; a symbolic link is removed, not followed. */
  private static void deleteTree(Path folder) throws IOException {
    List<Path> all;
    try (Stream<Path> entries = Files.walk(folder)) {
      all = new ArrayList<>(entries.toList());
    }
    all.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    for (Path entry : all) {
      Files.deleteIfExists(entry);
    }
  }
}
