package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionUpdateTest {
  private static final SessionMetadata META = SessionMetadata.created(1000, 1800);

  private static Blob b(String s) {
    return Blob.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static SessionUpdate.Delta delta(long base, long version, Map<String, Blob> set, Set<String> removed) {
    return new SessionUpdate.Delta("s1", 1, base, version, META.withLastAccessedTime(version), set, removed);
  }

  @Test
  void then_consecutiveDeltas_mergePerAttributeKeepingFirstBase() {
    SessionUpdate merged =
        delta(3, 4, Map.of("a", b("1"), "b", b("1")), Set.of("c"))
            .then(delta(4, 5, Map.of("c", b("2")), Set.of("b")));

    assertThat(merged)
        .isEqualTo(new SessionUpdate.Delta("s1", 1, 3, 5, META.withLastAccessedTime(5), Map.of("a", b("1"), "c", b("2")), Set.of("b")));
  }

  @Test
  void then_fullFollowedByDelta_isFullAtTheDeltasVersion() {
    SessionUpdate.Full full = new SessionUpdate.Full(new SessionSnapshot("s1", 1, 4, META, Map.of("a", b("1"), "b", b("1"))));

    SessionUpdate merged = full.then(delta(4, 5, Map.of("a", b("2")), Set.of("b")));

    assertThat(merged)
        .isEqualTo(new SessionUpdate.Full(new SessionSnapshot("s1", 1, 5, META.withLastAccessedTime(5), Map.of("a", b("2")))));
  }

  @Test
  void then_deltaFollowedByFull_isTheFull() {
    SessionUpdate.Full full = new SessionUpdate.Full(new SessionSnapshot("s1", 1, 6, META, Map.of()));

    assertThat(delta(4, 5, Map.of(), Set.of()).then(full)).isSameAs(full);
  }

  @Test
  void then_notContiguousOrOtherEpoch_doesNotMerge() {
    assertThat(delta(3, 4, Map.of(), Set.of()).then(delta(5, 6, Map.of(), Set.of()))).isNull();
    assertThat(delta(3, 4, Map.of(), Set.of()).then(new SessionUpdate.Delta("s1", 2, 4, 5, null, Map.of(), Set.of())))
        .isNull();
  }
}
