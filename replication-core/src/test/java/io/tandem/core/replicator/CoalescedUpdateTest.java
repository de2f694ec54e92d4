package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CoalescedUpdateTest {
  private static final SessionMetadata META = SessionMetadata.created(1000, 1800);

  private static Blob b(String s) {
    return Blob.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static SessionUpdate.Delta delta(long base, long version, Map<String, Blob> set, Set<String> removed) {
    return new SessionUpdate.Delta("s1", 1, base, version, META.withLastAccessedTime(version), set, removed);
  }

  private static SessionUpdate merged(SessionUpdate first, SessionUpdate... next) {
    CoalescedUpdate coalesced = new CoalescedUpdate(first);
    for (SessionUpdate update : next) {
      assertThat(coalesced.add(update)).as("merges %s", update).isTrue();
    }
    return coalesced.build();
  }

  @Test
  void add_consecutiveDeltas_mergePerAttributeKeepingFirstBase() {
    SessionUpdate merged = merged(delta(3, 4, Map.of("a", b("1"), "b", b("1")), Set.of("c")),
        delta(4, 5, Map.of("c", b("2")), Set.of("b")));

    assertThat(merged).isEqualTo(
        new SessionUpdate.Delta("s1", 1, 3, 5, META.withLastAccessedTime(5), Map.of("a", b("1"), "c", b("2")), Set.of("b")));
  }

  @Test
  void add_manyDeltas_theLastSetOrRemovalOfEachAttributeWins() {
    SessionUpdate merged = merged(delta(1, 2, Map.of("a", b("1")), Set.of()),
        delta(2, 3, Map.of(), Set.of("a")), delta(3, 4, Map.of("a", b("3"), "b", b("3")), Set.of()),
        delta(4, 5, Map.of(), Set.of("b")), delta(5, 6, Map.of("c", b("5")), Set.of()));

    assertThat(merged).isEqualTo(new SessionUpdate.Delta("s1", 1, 1, 6, META.withLastAccessedTime(6),
        Map.of("a", b("3"), "c", b("5")), Set.of("b")));
  }

  @Test
  void add_fullFollowedByDeltas_isFullAtTheLastDeltasVersion() {
    SessionUpdate.Full full = new SessionUpdate.Full(new SessionSnapshot("s1", 1, 4, META, Map.of("a", b("1"), "b", b("1"))));

    SessionUpdate merged = merged(full, delta(4, 5, Map.of("a", b("2")), Set.of("b")), delta(5, 6, Map.of("d", b("6")), Set.of()));

    assertThat(merged).isEqualTo(new SessionUpdate.Full(
        new SessionSnapshot("s1", 1, 6, META.withLastAccessedTime(6), Map.of("a", b("2"), "d", b("6")))));
    assertThat(full.snapshot().attributes()).as("the queued full session is not changed").containsOnlyKeys("a", "b");
  }

  @Test
  void add_deltaFollowedByFull_isTheFull() {
    SessionUpdate.Full full = new SessionUpdate.Full(new SessionSnapshot("s1", 1, 6, META, Map.of()));

    assertThat(merged(delta(4, 5, Map.of("a", b("1")), Set.of()), full)).isSameAs(full);
    assertThat(merged(delta(4, 5, Map.of(), Set.of()), full, delta(6, 7, Map.of("z", b("7")), Set.of())))
        .isEqualTo(new SessionUpdate.Full(new SessionSnapshot("s1", 1, 7, META.withLastAccessedTime(7), Map.of("z", b("7")))));
  }

  @Test
  void build_withNothingMerged_isTheUpdateAsQueued() {
    SessionUpdate.Delta only = delta(3, 4, Map.of("a", b("1")), Set.of());

    assertThat(new CoalescedUpdate(only).build()).isSameAs(only);
  }

  @Test
  void add_notContiguousOrOtherEpochOrSession_doesNotMergeAndChangesNothing() {
    CoalescedUpdate coalesced = new CoalescedUpdate(delta(3, 4, Map.of("a", b("1")), Set.of()));
    assertThat(coalesced.add(delta(4, 5, Map.of("b", b("2")), Set.of()))).isTrue();

    assertThat(coalesced.add(delta(6, 7, Map.of("c", b("3")), Set.of()))).isFalse();
    assertThat(coalesced.add(new SessionUpdate.Delta("s1", 2, 5, 6, null, Map.of("c", b("3")), Set.of()))).isFalse();
    assertThat(coalesced.add(new SessionUpdate.Delta("s2", 1, 5, 6, null, Map.of("c", b("3")), Set.of()))).isFalse();

    assertThat(coalesced.build())
        .isEqualTo(new SessionUpdate.Delta("s1", 1, 3, 5, META.withLastAccessedTime(5), Map.of("a", b("1"), "b", b("2")), Set.of()));
  }

  @Test
  void add_deltaWithoutMetadata_keepsTheEarlierMetadata() {
    SessionUpdate merged = merged(delta(1, 2, Map.of(), Set.of()), new SessionUpdate.Delta("s1", 1, 2, 3, null, Map.of(), Set.of("x")));

    assertThat(((SessionUpdate.Delta) merged).metadata()).isEqualTo(META.withLastAccessedTime(2));
  }
}
