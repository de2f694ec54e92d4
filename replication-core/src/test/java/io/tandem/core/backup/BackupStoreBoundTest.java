package io.tandem.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Ack;
import io.tandem.core.wire.Message.Nack;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code maxBackupBytes}: past it the store refuses what would grow it ({@code BACKUP_STORE_FULL}) and never drops or
 * changes a copy it acknowledged to make room.
 */
class BackupStoreBoundTest {
  private static final NodeId OWNER = new NodeId("owner");
  private static final long BOUND = 1000;
  private ManualClock clock;
  private BackupStore store;

  @BeforeEach
  void setUp() {
    clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    store = new BackupStore(clock, Duration.ofMinutes(10), BOUND);
  }

  private static Blob bytes(int size) {
    return Blob.wrap(new byte[size]);
  }

  private SessionSnapshot full(String id, long version, Map<String, Blob> attributes) {
    return new SessionSnapshot(id, 1, version, SessionMetadata.created(clock.millis(), 60), attributes);
  }

  private static Message.SessionDelta delta(String id, long base, Map<String, Blob> set, Set<String> removed) {
    return new Message.SessionDelta(id, 1, base, base + 1, null, set, removed);
  }

  private static void assertFull(Message reply) {
    assertThat(reply).isInstanceOfSatisfying(Nack.class, n -> {
      assertThat(n.reason()).isEqualTo(Nack.Reason.BACKUP_STORE_FULL);
      assertThat(n.detail()).contains("maxBackupBytes " + BOUND);
    });
  }

  @Test
  void applyFull_newSessionPastTheBound_isRefusedFull_andNothingIsStored() {
    assertThat(store.applyFull(OWNER, full("s1", 1, Map.of("v", bytes(600))))).isInstanceOf(Ack.class);

    Message reply = store.applyFull(OWNER, full("s2", 1, Map.of("v", bytes(600))));

    assertFull(reply);
    assertThat(store.entry("s2")).isEmpty();
    assertThat(store.stats().refusedFull()).isEqualTo(1);
    assertThat(store.stats().maxBytes()).isEqualTo(BOUND);
    assertThat(store.bytesHeld()).isLessThanOrEqualTo(BOUND);
  }

  @Test
  void applyFull_growingAHeldCopyPastTheBound_isRefused_andTheHeldCopyIsKeptAsItWas() {
    SessionSnapshot first = full("s1", 1, Map.of("v", bytes(600)));
    store.applyFull(OWNER, first);

    assertFull(store.applyFull(OWNER, full("s1", 2, Map.of("v", bytes(600), "w", bytes(600)))));

    assertThat(store.entry("s1").orElseThrow().snapshot()).isEqualTo(first);
  }

  @Test
  void applyFull_replacingAHeldCopyWithoutGrowth_isApplied_atTheBound() {
    store.applyFull(OWNER, full("s1", 1, Map.of("v", bytes(500))));
    store.applyFull(OWNER, full("s2", 1, Map.of("v", bytes(400))));

    assertThat(store.applyFull(OWNER, full("s1", 2, Map.of("v", bytes(400))))).isEqualTo(new Ack(1, 2));
    assertThat(store.applyFull(OWNER, full("s2", 2, Map.of("v", bytes(400))))).isEqualTo(new Ack(1, 2));
  }

  @Test
  void applyDelta_growingPastTheBound_isRefused_andTheCopyStaysAtItsVersion_whileAShrinkingOneApplies() {
    store.applyFull(OWNER, full("s1", 1, Map.of("v", bytes(600))));

    assertFull(store.applyDelta(OWNER, delta("s1", 1, Map.of("w", bytes(600)), Set.of())));
    assertThat(store.entry("s1").orElseThrow().snapshot().version()).isEqualTo(1);
    assertThat(store.entry("s1").orElseThrow().snapshot().attributes()).containsOnlyKeys("v");

    assertThat(store.applyDelta(OWNER, delta("s1", 1, Map.of("w", bytes(100)), Set.of("v")))).isEqualTo(new Ack(1, 2));
    assertThat(store.entry("s1").orElseThrow().snapshot().attributes()).containsOnlyKeys("w");
  }

  @Test
  void touchesInvalidationsAndIdChanges_atTheBound_areApplied_andAnEndedSessionMakesRoom() {
    store.applyFull(OWNER, full("s1", 1, Map.of("v", bytes(600))));
    store.applyFull(OWNER, full("s2", 1, Map.of("v", bytes(300))));
    assertFull(store.applyFull(OWNER, full("s3", 1, Map.of("v", bytes(600)))));

    assertThat(store.applyTouches(OWNER, new Message.TouchBatch(List.of(new Message.Touch("s2", 1, clock.millis() + 1)))))
        .isInstanceOf(Ack.class);
    assertThat(store.changeId(OWNER, new Message.IdChange("s2", "s2-new", 1, 2))).isInstanceOf(Ack.class);
    assertThat(store.invalidate(OWNER, new Message.Invalidate("s1", 1, 2, Message.InvalidateReason.INVALIDATED)))
        .isInstanceOf(Ack.class);

    assertThat(store.applyFull(OWNER, full("s3", 1, Map.of("v", bytes(600))))).isInstanceOf(Ack.class);
    assertThat(store.stats().refusedFull()).isEqualTo(1);
  }

  @Test
  void unboundedStore_neverRefusesForSize() {
    BackupStore unbounded = new BackupStore(clock, Duration.ofMinutes(10));

    for (int i = 0; i < 10; i++) {
      assertThat(unbounded.applyFull(OWNER, full("s" + i, 1, Map.of("v", bytes(100_000))))).isInstanceOf(Ack.class);
    }
  }
}
