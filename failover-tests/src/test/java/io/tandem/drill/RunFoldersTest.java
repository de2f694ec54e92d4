package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One folder per drill run, named after its start; the oldest pruned to the newest N, saying what went. */
class RunFoldersTest {
  private static final Instant START = Instant.parse("2026-11-24T16:05:12Z");

  @TempDir
  Path temp;
  private Path runs;

  @BeforeEach
  void runsFolder() {
    runs = temp.resolve("drill-runs");
  }

  @Test
  void create_namesTheFolderAfterTheStart_andASecondRunInTheSameSecondGetsASuffix() throws IOException {
    Path first = RunFolders.create(runs, START);
    Path second = RunFolders.create(runs, START);

    assertThat(first.getFileName()).hasToString("20261124-160512");
    assertThat(second.getFileName()).hasToString("20261124-160512-2");
    assertThat(first).isDirectory();
    assertThat(second).isDirectory();
  }

  @Test
  void prune_keepsTheNewestN_removesTheRest_andSaysWhatAndHowMuch() throws IOException {
    for (int i = 0; i < 7; i++) {
      Path folder = folder("2026112" + i + "-120000", i, 1024 * 1024);
      Files.setLastModifiedTime(folder, FileTime.from(START.minusSeconds(3600L * (7 - i))));
    }
    Path current = RunFolders.create(runs, START);

    RunFolders.Pruned pruned = RunFolders.prune(runs, 5, current);

    assertThat(pruned.removed()).containsExactly("20261120-120000", "20261121-120000", "20261122-120000");
    assertThat(pruned.bytes()).isEqualTo(3L * 1024 * 1024);
    assertThat(names()).containsExactly("20261123-120000", "20261124-120000", "20261124-160512", "20261125-120000",
        "20261126-120000");
    assertThat(pruned.describe(runs, 5)).isEqualTo("Pruned 3 old run folders under " + runs + " (3 MB; keeping the newest 5,"
        + " --keep-runs): 20261120-120000, 20261121-120000, 20261122-120000");
  }

  @Test
  void prune_neverRemovesTheCurrentRun_evenWhenItLooksOlder() throws IOException {
    Path current = RunFolders.create(runs, START);
    Files.setLastModifiedTime(current, FileTime.from(START.minusSeconds(86_400)));
    folder("newer", 0, 10);

    RunFolders.Pruned pruned = RunFolders.prune(runs, 1, current);

    assertThat(pruned.removed()).isEmpty();
    assertThat(names()).containsExactlyInAnyOrder("20261124-160512", "newer");
  }

  @Test
  void prune_countsFoldersOfTheOldLayout_oneFolderPerDrill_asRuns() throws IOException {
    Path legacy = folder("kill-owner-MODIFIED_ATTRIBUTE-SYNC-sticky-123456789", 0, 2048);
    Files.setLastModifiedTime(legacy, FileTime.from(START.minusSeconds(86_400)));
    Path current = RunFolders.create(runs, START);

    RunFolders.Pruned pruned = RunFolders.prune(runs, 1, current);

    assertThat(pruned.removed()).containsExactly("kill-owner-MODIFIED_ATTRIBUTE-SYNC-sticky-123456789");
    assertThat(pruned.describe(runs, 1)).startsWith("Pruned 1 old run folder under ").contains("(2 KB; keeping the newest 1");
    assertThat(names()).containsExactly("20261124-160512");
  }

  @Test
  void prune_withNothingToRemove_saysNothing() throws IOException {
    Path current = RunFolders.create(runs, START);

    RunFolders.Pruned pruned = RunFolders.prune(runs, 5, current);

    assertThat(pruned.removed()).isEmpty();
    assertThat(pruned.describe(runs, 5)).isEmpty();
    assertThat(current).isDirectory();
  }

  @Test
  void prune_removesASymbolicLinkNotWhatItPointsTo() throws IOException {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Files.writeString(outside.resolve("keep.txt"), "not the drill's");
    Path old = folder("old", 0, 10);
    Files.createSymbolicLink(old.resolve("link"), outside);
    Files.setLastModifiedTime(old, FileTime.from(START.minusSeconds(86_400)));
    Path current = RunFolders.create(runs, START);

    RunFolders.prune(runs, 1, current);

    assertThat(old).doesNotExist();
    assertThat(outside.resolve("keep.txt")).exists();
  }

  @Test
  void prune_keepingNone_isRefused() {
    assertThatThrownBy(() -> RunFolders.prune(runs, 0, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keep 0");
  }

  /** A run folder with a node's log of {@code bytes} bytes. */
  private Path folder(String name, int node, int bytes) throws IOException {
    Path logs = Files.createDirectories(runs.resolve(name).resolve("n" + node).resolve("logs"));
    Files.write(logs.resolve("catalina.out"), new byte[bytes]);
    return runs.resolve(name);
  }

  private java.util.List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(runs)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
