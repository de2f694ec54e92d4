package io.tandem.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.Message.Ack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deltas apply to a backup in place; these tests prove that no snapshot the store handed out (to state transfer,
 * promotion, migration or a test) or was handed (by a full session) ever changes afterwards, and that the
 * incrementally kept byte count stays exact.
 */
class BackupStoreSnapshotsTest {
  private static final NodeId OWNER = new NodeId("owner");
  private static final NodeId TAKER = new NodeId("taker");
  private ManualClock clock;
  private BackupStore store;

  @BeforeEach
  void setUp() {
    clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    store = new BackupStore(clock, Duration.ofMinutes(10));
  }

  private static Blob b(String s) {
    return Blob.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private SessionSnapshot full(String id, long version, Map<String, Blob> attributes) {
    return new SessionSnapshot(id, 1, version, SessionMetadata.created(clock.millis(), 60), attributes);
  }

  private static Message.SessionDelta delta(String id, long base, Map<String, Blob> set, Set<String> removed) {
    return new Message.SessionDelta(id, 1, base, base + 1, null, set, removed);
  }

  private SessionSnapshot held(String id) {
    return store.entry(id).orElseThrow().snapshot();
  }

  @Test
  void applyDelta_afterASnapshotWasHandedOut_leavesThatSnapshotUnchanged() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("1"), "b", b("1"))));
    store.applyDelta(OWNER, delta("s", 1, Map.of("a", b("2")), Set.of()));
    SessionSnapshot handedOut = held("s"); // for example to state transfer, which encodes it later

    store.applyDelta(OWNER, delta("s", 2, Map.of("a", b("3"), "c", b("3")), Set.of("b")));

    assertThat(handedOut.version()).isEqualTo(2);
    assertThat(handedOut.attributes()).isEqualTo(Map.of("a", b("2"), "b", b("1")));
    assertThat(held("s").attributes()).isEqualTo(Map.of("a", b("3"), "c", b("3")));
  }

  @Test
  void applyDelta_leavesTheFullSnapshotItStartedFromUnchanged() {
    SessionSnapshot sent = full("s", 1, Map.of("a", b("1")));
    store.applyFull(OWNER, sent);

    store.applyDelta(OWNER, delta("s", 1, Map.of("b", b("2")), Set.of("a")));

    assertThat(sent.attributes()).isEqualTo(Map.of("a", b("1")));
    assertThat(held("s").attributes()).isEqualTo(Map.of("b", b("2")));
  }

  @Test
  void take_thenALateDeltaForAnotherCopy_neverChangesThePromotedSnapshot() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("1"))));
    store.applyDelta(OWNER, delta("s", 1, Map.of("a", b("2")), Set.of()));
    SessionSnapshot promoted = store.take("s").orElseThrow().snapshot();
    store.applyFull(OWNER, promoted); // put back, as a refused migration does

    store.applyDelta(OWNER, delta("s", 2, Map.of("a", b("3")), Set.of()));

    assertThat(promoted.attributes()).isEqualTo(Map.of("a", b("2")));
    assertThat(held("s").attributes()).isEqualTo(Map.of("a", b("3")));
  }

  @Test
  void heldFor_snapshotsStayAsTheyWereWhileDeltasGoOn() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("1"))));
    List<BackupStore.BackupEntry> transferring = store.heldFor(OWNER);

    store.applyDelta(OWNER, delta("s", 1, Map.of("a", b("2")), Set.of()));

    assertThat(transferring).singleElement().satisfies(e -> assertThat(e.snapshot().attributes()).isEqualTo(Map.of("a", b("1"))));
  }

  @Test
  void touches_afterASnapshotWasHandedOut_leaveItsLastAccessTimeUnchanged() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("1"))));
    SessionSnapshot before = held("s");
    long originalAccess = before.metadata().lastAccessedTime();

    store.applyTouches(OWNER, new Message.TouchBatch(List.of(new Message.Touch("s", 1, originalAccess + 500))));

    assertThat(before.metadata().lastAccessedTime()).isEqualTo(originalAccess);
    assertThat(held("s").metadata().lastAccessedTime()).isEqualTo(originalAccess + 500);
    assertThat(held("s").attributes()).isSameAs(before.attributes()); // a touch copies no attributes
  }

  @Test
  void entry_askedTwiceWithoutAChange_isTheSameSnapshot() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("1"))));
    store.applyDelta(OWNER, delta("s", 1, Map.of("b", b("2")), Set.of()));

    assertThat(held("s")).isSameAs(held("s"));
  }

  /**
   * Every claim raises the epoch, so another node writing at the epoch held here is a second owner at that epoch: it is
   * refused, never acknowledged as stored (docs/protocol.md 11.2), and the held copy keeps its owner and its changes.
   */
  @Test
  void applyDelta_fromAnotherNodeAtTheHeldEpoch_isRefusedAsATie() {
    store.applyFull(OWNER, full("s", 1, Map.of()));

    Message answer = store.applyDelta(TAKER, delta("s", 1, Map.of("a", b("1")), Set.of()));

    assertThat(answer).isInstanceOfSatisfying(Message.Nack.class,
        nack -> assertThat(nack.reason()).isEqualTo(Message.Nack.Reason.STALE_EPOCH));
    assertThat(store.entry("s").orElseThrow().owner()).isEqualTo(OWNER);
    assertThat(store.entry("s").orElseThrow().snapshot().attributes()).isEmpty();
  }

  /** A full copy from another node at the held epoch, even at a later version: a tie, refused the same way. */
  @Test
  void applyFull_fromAnotherNodeAtTheHeldEpoch_isRefusedAsATie() {
    store.applyFull(OWNER, full("s", 1, Map.of("a", b("mine"))));

    Message answer = store.applyFull(TAKER, new SessionSnapshot("s", 1, 9, SessionMetadata.created(0, 60),
        Map.of("a", b("theirs"))));

    assertThat(answer).isInstanceOfSatisfying(Message.Nack.class,
        nack -> assertThat(nack.reason()).isEqualTo(Message.Nack.Reason.STALE_EPOCH));
    assertThat(store.entry("s").orElseThrow().owner()).isEqualTo(OWNER);
    assertThat(store.entry("s").orElseThrow().snapshot().attributes()).containsEntry("a", b("mine"));
  }

  /** Random deltas, metadata changes, touches and id changes: the kept count equals a recount every time. */
  @Property(tries = 100)
  void bytesHeld_keptIncrementally_equalsARecountAfterEveryStep(@ForAll long seed) {
    Random random = new Random(seed);
    BackupStore store = new BackupStore(new ManualClock(Instant.EPOCH), Duration.ofMinutes(1));
    String id = "s";
    long version = 1;
    store.applyFull(OWNER, new SessionSnapshot(id, 1, version, SessionMetadata.created(0, 60), Map.of("x", b("start"))));
    for (int step = 0; step < 60; step++) {
      int kind = random.nextInt(10);
      if (kind == 0) {
        String newId = "s" + "-renamed".repeat(random.nextInt(3)) + step;
        store.changeId(OWNER, new Message.IdChange(id, newId, 1, version + 1));
        id = newId;
        version++;
      } else if (kind == 1) {
        store.applyTouches(OWNER, new Message.TouchBatch(List.of(new Message.Touch(id, 1, step * 1000L))));
      } else {
        Map<String, Blob> set = new HashMap<>();
        for (int i = random.nextInt(3); i > 0; i--) {
          set.put("a" + random.nextInt(6), Blob.wrap(new byte[random.nextInt(50)]));
        }
        Set<String> removed = random.nextBoolean() ? Set.of("a" + random.nextInt(6)) : Set.of();
        SessionMetadata metadata = random.nextInt(4) == 0
            ? new SessionMetadata(0, step, 60, "FORM", Blob.wrap(new byte[random.nextInt(30)]), Map.of("n", b("x".repeat(step))))
            : null;
        store.applyDelta(OWNER, new Message.SessionDelta(id, 1, version, version + 1, metadata, set, removed));
        version++;
      }
      SessionSnapshot now = store.entry(id).orElseThrow().snapshot();
      assertThat(now.version()).isEqualTo(version);
      assertThat(store.bytesHeld()).isEqualTo(now.serializedSize());
    }
  }
}
