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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BackupStoreTest {
  private static final NodeId OWNER = new NodeId("owner");
  private static final NodeId OTHER = new NodeId("other");
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

  private SessionSnapshot full(String id, long epoch, long version, Map<String, Blob> attributes) {
    return new SessionSnapshot(id, epoch, version, SessionMetadata.created(clock.millis(), 60), attributes);
  }

  private static Message.SessionDelta delta(String id, long epoch, long base, Map<String, Blob> set, Set<String> removed) {
    return new Message.SessionDelta(id, epoch, base, base + 1, null, set, removed);
  }

  private Map<String, Blob> attributes(String id) {
    return store.entry(id).orElseThrow().snapshot().attributes();
  }

  /**
   * 11.3.52 (soak seed 1225184): this node took a session back from a requester and then gave its id up at a login
   * (ended at epoch 3); the requester's release of its former holder's copy, at epoch 2, was acknowledged, and the
   * requester served the abandoned id on. A release below an end recorded here is refused as stale, so the releaser
   * is fenced; at or above it, acknowledged as before.
   */
  @Test
  void releaseBelowAnEndRecordedHere_isRefusedStale_atOrAboveIt_acknowledged() {
    store.endedElsewhere("s", 3);

    assertThat(store.invalidate(OTHER, new Message.Invalidate("s", 2, 18, Message.InvalidateReason.RELEASED)))
        .isEqualTo(new Message.Nack(Message.Nack.Reason.STALE_EPOCH, 3, 0, "session s ended on this node at epoch 3"));
    assertThat(store.invalidate(OTHER, new Message.Invalidate("s", 3, 18, Message.InvalidateReason.RELEASED)))
        .isInstanceOf(Message.Ack.class);
    assertThat(store.invalidate(OTHER, new Message.Invalidate("s", 4, 1, Message.InvalidateReason.RELEASED)))
        .isInstanceOf(Message.Ack.class);
  }

  @Test
  void applyDelta_inOrder_mergesPerAttribute() {
    store.applyFull(OWNER, full("s", 1, 1, Map.of("a", b("1"), "b", b("1"))));

    assertThat(store.applyDelta(OWNER, delta("s", 1, 1, Map.of("a", b("2")), Set.of("b")))).isEqualTo(new Ack(1, 2));
    assertThat(attributes("s")).isEqualTo(Map.of("a", b("2")));
  }

  @Test
  void applyDelta_outOfOrder_asksForFullThenAcceptsIt() {
    store.applyFull(OWNER, full("s", 1, 1, Map.of("a", b("1"))));

    Message reply = store.applyDelta(OWNER, delta("s", 1, 2, Map.of("c", b("3")), Set.of()));

    assertThat(reply).isInstanceOfSatisfying(Nack.class, n -> {
      assertThat(n.reason()).isEqualTo(Nack.Reason.GAP);
      assertThat(n.version()).isEqualTo(1);
      assertThat(n.detail()).contains("version 1").contains("starts at 2");
    });
    assertThat(store.applyFull(OWNER, full("s", 1, 3, Map.of("a", b("1"), "c", b("3"))))).isEqualTo(new Ack(1, 3));
    assertThat(attributes("s")).containsKeys("a", "c");
  }

  @Test
  void applyDelta_unknownSession_isAGap() {
    assertThat(store.applyDelta(OWNER, delta("nope", 1, 4, Map.of(), Set.of())))
        .isInstanceOfSatisfying(Nack.class, n -> assertThat(n.reason()).isEqualTo(Nack.Reason.GAP));
  }

  @Test
  void duplicates_areAcknowledgedWithoutChange() {
    store.applyFull(OWNER, full("s", 1, 2, Map.of("a", b("new"))));

    assertThat(store.applyFull(OWNER, full("s", 1, 1, Map.of("a", b("old"))))).isEqualTo(new Ack(1, 2));
    assertThat(store.applyDelta(OWNER, delta("s", 1, 1, Map.of("a", b("old")), Set.of()))).isEqualTo(new Ack(1, 2));
    assertThat(attributes("s")).isEqualTo(Map.of("a", b("new")));
  }

  @Test
  void olderEpoch_isRejectedAsStale_newerEpochReplaces() {
    store.applyFull(OWNER, full("s", 2, 5, Map.of("a", b("owner2"))));

    assertThat(store.applyFull(OTHER, full("s", 1, 9, Map.of("a", b("former"))))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
    assertThat(store.applyDelta(OTHER, delta("s", 1, 5, Map.of(), Set.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
    assertThat(store.invalidate(OTHER, new Message.Invalidate("s", 1, 6, Message.InvalidateReason.INVALIDATED)))
        .isInstanceOfSatisfying(Nack.class, n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
    assertThat(store.applyFull(OTHER, full("s", 3, 1, Map.of("a", b("owner3"))))).isEqualTo(new Ack(3, 1));
    assertThat(store.entry("s").orElseThrow().owner()).isEqualTo(OTHER);
  }

  @Test
  void invalidated_refusesLateUpdatesUntilTheTombstoneLapses() {
    store.applyFull(OWNER, full("s", 1, 1, Map.of()));
    store.invalidate(OWNER, new Message.Invalidate("s", 1, 2, Message.InvalidateReason.INVALIDATED));

    assertThat(store.entry("s")).isEmpty();
    assertThat(store.applyFull(OWNER, full("s", 1, 1, Map.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));
    assertThat(store.applyDelta(OWNER, delta("s", 1, 1, Map.of(), Set.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));

    clock.advance(Duration.ofMinutes(11));
    assertThat(store.applyFull(OWNER, full("s", 1, 1, Map.of()))).isEqualTo(new Ack(1, 1));
  }

  @Test
  void released_removesWithoutTombstone() {
    store.applyFull(OWNER, full("s", 1, 1, Map.of()));
    store.invalidate(OWNER, new Message.Invalidate("s", 1, 1, Message.InvalidateReason.RELEASED));

    assertThat(store.entry("s")).isEmpty();
    assertThat(store.isTombstoned("s")).isFalse();
  }

  @Test
  void released_atAnEarlierEpochByTheOwnerOfTheCopyHeld_isAcknowledgedAndTheCopyKept() {
    // OWNER took the session over at epoch 3 and released its former holder's buddy (this node) at epoch 2; the
    // release arrived after this node became OWNER's buddy and stored its copy (soak seeds 326270, 328592).
    store.applyFull(OWNER, full("s", 3, 15, Map.of("a", b("1"))));

    assertThat(store.invalidate(OWNER, new Message.Invalidate("s", 2, 15, Message.InvalidateReason.RELEASED)))
        .isEqualTo(new Ack(2, 15));
    assertThat(attributes("s")).isEqualTo(Map.of("a", b("1")));
    assertThat(store.invalidate(OTHER, new Message.Invalidate("s", 2, 15, Message.InvalidateReason.RELEASED)))
        .as("released by another node: claimed above, refused").isInstanceOfSatisfying(Nack.class,
            n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
    assertThat(store.invalidate(OWNER, new Message.Invalidate("s", 2, 15, Message.InvalidateReason.INVALIDATED)))
        .as("an end at an earlier epoch is no release").isInstanceOfSatisfying(Nack.class,
            n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
  }

  @Test
  void released_byAnotherNodeThanTheCopysOwner_refusesThatOwnersLateUpdatesAtItsEpoch() {
    // A migration's requester (OTHER) releases its holder's buddy: the holder's update sent before it handed the
    // session out, arriving late, must not store the copy again for this node to adopt beside the requester.
    store.applyFull(OWNER, full("s", 3, 23, Map.of()));
    store.invalidate(OTHER, new Message.Invalidate("s", 3, 23, Message.InvalidateReason.RELEASED));

    assertThat(store.applyFull(OWNER, full("s", 3, 24, Map.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));
    assertThat(store.entry("s")).isEmpty();
    assertThat(store.endedAt("s")).isEmpty(); // moved on, not ended
    assertThat(store.applyFull(OTHER, full("s", 4, 24, Map.of()))).isEqualTo(new Ack(4, 24));
  }

  @Test
  void changeId_rekeysAndRefusesTheOldId() {
    store.applyFull(OWNER, full("old", 1, 3, Map.of("a", b("1"))));

    assertThat(store.changeId(OWNER, new Message.IdChange("old", "new", 1, 4))).isEqualTo(new Ack(1, 4));
    assertThat(store.entry("new").orElseThrow().snapshot().version()).isEqualTo(4);
    assertThat(store.entry("old")).isEmpty();
    assertThat(store.applyDelta(OWNER, delta("old", 1, 3, Map.of(), Set.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));
  }

  /**
   * Regression test for a buddy left without a copy (the simulation, seed 4617): the next owner's copy under the new
   * id, at the next epoch, came over its connection before the former owner's id change over a slower one; the id
   * change re-keyed the older copy over it, and the former owner's release of its epoch then dropped it.
   */
  @Test
  void changeId_arrivingAfterTheNextOwnersCopyUnderTheNewId_isStale_andKeepsThatCopy() {
    store.applyFull(OWNER, full("old", 1, 3, Map.of("a", b("1"))));
    store.applyFull(OTHER, full("new", 2, 4, Map.of("a", b("1"), "c", b("2"))));

    assertThat(store.changeId(OWNER, new Message.IdChange("old", "new", 1, 4))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.STALE_EPOCH));
    store.invalidate(OWNER, new Message.Invalidate("new", 1, 4, Message.InvalidateReason.RELEASED));

    assertThat(store.entry("new")).hasValueSatisfying(e -> {
      assertThat(e.snapshot().epoch()).isEqualTo(2);
      assertThat(e.owner()).isEqualTo(OTHER);
    });
    assertThat(store.entry("old")).isEmpty();
    assertThat(store.endedAt("old")).isPresent();
  }

  /**
   * Regression test for a logged-out session brought back by a late id change (the simulation in ASYNC mode, seed 34,
   * docs/protocol.md 11.3.44): the owner's queued id change old → new reached its buddy after the session had
   * migrated there under the new id and ended; re-keying the old copy under the ended id made it a backup again,
   * adopted and served when its owner died.
   */
  @Test
  void changeId_toAnIdThatEndedHere_isRefused_andGivesTheOldIdUp() {
    store.applyFull(OWNER, full("old", 1, 3, Map.of("a", b("1"))));
    store.invalidate(OTHER, new Message.Invalidate("new", 2, 6, Message.InvalidateReason.INVALIDATED));

    assertThat(store.changeId(OWNER, new Message.IdChange("old", "new", 1, 4))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));
    assertThat(store.entry("new")).isEmpty();
    assertThat(store.entry("old")).isEmpty();
    assertThat(store.endedAt("old")).isPresent();
  }

  @Test
  void changeId_toTheSameId_isRefusedAndKeepsTheBackup() {
    store.applyFull(OWNER, full("same", 1, 3, Map.of()));

    assertThat(store.changeId(OWNER, new Message.IdChange("same", "same", 1, 4))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.REFUSED));
    assertThat(store.entry("same")).isPresent();
    assertThat(store.isTombstoned("same")).isFalse();
  }

  @Test
  void changeId_afterAMissedUpdate_isAGap() {
    store.applyFull(OWNER, full("old", 1, 3, Map.of()));

    assertThat(store.changeId(OWNER, new Message.IdChange("old", "new", 1, 6))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.GAP));
  }

  @Test
  void touches_onlyRaiseLastAccessTime() {
    store.applyFull(OWNER, full("s", 1, 1, Map.of()));
    long created = clock.millis();

    store.applyTouches(OWNER, new Message.TouchBatch(List.of(new Message.Touch("s", 1, created + 500), new Message.Touch("ghost", 1, 1))));
    store.applyTouches(OWNER, new Message.TouchBatch(List.of(new Message.Touch("s", 1, created + 100))));

    SessionSnapshot held = store.entry("s").orElseThrow().snapshot();
    assertThat(held.metadata().lastAccessedTime()).isEqualTo(created + 500);
    assertThat(held.version()).isEqualTo(1);
    assertThat(store.stats().touchesUnknown()).isEqualTo(1);
  }

  @Test
  void bytesHeld_isExactAfterAnySequence() {
    store.applyFull(OWNER, full("s1", 1, 1, Map.of("a", b("12345"))));
    store.applyFull(OWNER, full("s2", 1, 1, Map.of("b", b("1"))));
    store.applyDelta(OWNER, delta("s1", 1, 1, Map.of("c", b("xyz")), Set.of("a")));
    store.take("s2");
    store.applyFull(OTHER, full("s3", 1, 1, Map.of("d", b("dd"))));
    store.invalidate(OTHER, new Message.Invalidate("s3", 1, 2, Message.InvalidateReason.EXPIRED));
    store.applyFull(OTHER, full("s4", 1, 1, Map.of("e", b("e".repeat(100)))));

    long expected = store.heldFor(OWNER).stream().mapToLong(e -> e.snapshot().serializedSize()).sum()
        + store.heldFor(OTHER).stream().mapToLong(e -> e.snapshot().serializedSize()).sum();
    assertThat(store.bytesHeld()).isEqualTo(expected).isPositive();
    assertThat(store.size()).isEqualTo(2);
  }

  @Test
  void expireOrphans_neverExpiresABackupWhoseOwnerIsAlive() {
    store.applyFull(OWNER, full("alive", 1, 1, Map.of()));
    store.applyFull(OTHER, full("orphan", 1, 1, Map.of()));
    clock.advance(Duration.ofHours(5));

    List<String> expired = store.expireOrphans(OWNER::equals, 30_000);

    assertThat(expired).containsExactly("orphan");
    assertThat(store.entry("alive")).isPresent();
    assertThat(store.applyFull(OTHER, full("orphan", 1, 1, Map.of()))).isInstanceOfSatisfying(Nack.class,
        n -> assertThat(n.reason()).isEqualTo(Nack.Reason.INVALIDATED));
  }

  @Test
  void expireOrphans_waitsForIdleTimePlusGrace() {
    store.applyFull(OTHER, full("orphan", 1, 1, Map.of()));
    clock.advance(Duration.ofSeconds(60 + 29));

    assertThat(store.expireOrphans(id -> false, 30_000)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.expireOrphans(id -> false, 30_000)).containsExactly("orphan");
  }

  /**
   * Soak seed 225828 (docs/protocol.md 11.3.33): the owner's clock was minutes behind this host's (NTP steps on
   * both), so a copy it had written to a moment ago carried last-access stamps older than its inactive interval by
   * this host's time of day; its owner out of the view, the copy was expired as an orphan and remembered as ended, and
   * the owner, asking after its quarantine, dropped the only other copy. A copy is idle only if nothing of it arrived
   * for that long here too.
   */
  @Test
  void expireOrphans_ofACopyStampedByAnOwnerWhoseClockIsBehind_waitsForItsIdleTimeHere() {
    long ownersTimeOfDay = clock.millis() - Duration.ofMinutes(40).toMillis();
    store.applyFull(OTHER, new SessionSnapshot("skewed", 1, 1, SessionMetadata.created(ownersTimeOfDay, 60), Map.of()));

    assertThat(store.expireOrphans(id -> false, 30_000)).as("written to a moment ago").isEmpty();
    clock.advance(Duration.ofSeconds(60 + 29));
    assertThat(store.expireOrphans(id -> false, 30_000)).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(store.expireOrphans(id -> false, 30_000)).containsExactly("skewed");
  }
}
