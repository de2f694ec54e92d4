package io.tandem.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The last access a backup's holder vouches for on its own clock (docs/protocol.md 11.3.23): the owner stamped the
 * copy's last-access time on its own time of day, which may be minutes off this node's.
 */
class BackupStoreAccessVouchTest {
  private static final NodeId OWNER = new NodeId("n2");
  private static final long LAG = Duration.ofSeconds(61).toMillis();
  private static final Instant START = Instant.parse("2026-01-01T12:00:00Z");

  /** This node's time of day, which steps; the store's ticker, which does not. */
  private final ManualClock timeOfDay = new ManualClock(START);
  private final ManualClock ticker = new ManualClock(Instant.EPOCH);
  private final BackupStore store = new BackupStore(timeOfDay, ticker, Duration.ofMinutes(10), Long.MAX_VALUE);

  @Test
  void ownersClockBehind_theAccessCountsFromTheTouchLagBeforeItArrived() {
    long ownerNow = millis(START.minus(Duration.ofMinutes(10))); // the owner's clock: 10 minutes behind
    store.applyFull(OWNER, copy(ownerNow));
    pass(Duration.ofSeconds(5));
    store.applyTouches(OWNER, touch(ownerNow + 5_000));
    pass(Duration.ofMinutes(1));

    assertThat(vouchedLastAccess()).isEqualTo(millis(START.plusSeconds(5)) - LAG);
  }

  @Test
  void ownersClockAhead_theAccessCountsFromItsArrival() {
    long ownerNow = millis(START.plus(Duration.ofMinutes(10)));
    store.applyFull(OWNER, copy(ownerNow));
    pass(Duration.ofSeconds(5));
    store.applyTouches(OWNER, touch(ownerNow + 5_000));
    pass(Duration.ofMinutes(1));

    assertThat(vouchedLastAccess()).isEqualTo(millis(START.plusSeconds(5)));
  }

  @Test
  void clocksThatAgree_keepTheOwnersStamp() {
    store.applyFull(OWNER, copy(millis(START)));
    pass(Duration.ofSeconds(5));
    store.applyTouches(OWNER, touch(millis(START) + 4_900));
    pass(Duration.ofMinutes(20));

    BackupStore.BackupEntry entry = store.entry("s").orElseThrow();
    assertThat(entry.vouchedSnapshot(LAG)).isSameAs(entry.snapshot());
  }

  @Test
  void aStepOfThisNodesClockAfterTheArrival_movesTheArrivalAlong() {
    long ownerNow = millis(START.minus(Duration.ofMinutes(10)));
    store.applyFull(OWNER, copy(ownerNow));
    store.applyTouches(OWNER, touch(ownerNow + 1));
    timeOfDay.advance(Duration.ofMinutes(20)); // a step: the ticker does not move

    assertThat(vouchedLastAccess()).isEqualTo(millis(START.plus(Duration.ofMinutes(20))) - LAG);
  }

  /** 11.3.50 (the simulation, seed 1110133): an owner's first flush to a new buddy, its clock far behind. */
  @Test
  void firstCopyFlushedAfterAnAccess_countsFromTheTouchLagBeforeItArrived() {
    pass(Duration.ofSeconds(30));
    store.applyFullAfterAnAccess(OWNER, copy(millis(START.minus(Duration.ofMinutes(26)))));
    pass(Duration.ofSeconds(2));

    assertThat(vouchedLastAccess()).isEqualTo(millis(START.plusSeconds(30)) - LAG);
  }

  @Test
  void aCopyWithoutANewerAccessSinceItsFirstBytes_isVouchedForOnlyAsNotAfterNow() {
    store.applyFull(OWNER, copy(millis(START.minus(Duration.ofMinutes(10)))));
    assertThat(vouchedLastAccess()).isEqualTo(millis(START.minus(Duration.ofMinutes(10))));

    store.applyFull(OWNER, new SessionSnapshot("s", 1, 2, metadata(millis(START.plus(Duration.ofHours(1)))), Map.of()));
    // A newer access arrived with the full copy (an update it caused): from its arrival, not the owner's stamp.
    assertThat(vouchedLastAccess()).isEqualTo(millis(START));
  }

  @Test
  void aCopyResentWithTheSameLastAccess_keepsWhenThatAccessArrived() {
    long ownerNow = millis(START.minus(Duration.ofMinutes(10)));
    store.applyFull(OWNER, copy(ownerNow));
    store.applyTouches(OWNER, touch(ownerNow + 1));
    pass(Duration.ofMinutes(5));
    // State transfer re-sends the copy (a new buddy, a refusal): no access caused it.
    store.applyFull(OWNER, new SessionSnapshot("s", 1, 2, metadata(ownerNow + 1), Map.of()));
    pass(Duration.ofMinutes(1));

    assertThat(vouchedLastAccess()).isEqualTo(millis(START) - LAG);
  }

  @Test
  void aDeltaCarryingALaterAccess_isAnArrival() {
    long ownerNow = millis(START.minus(Duration.ofMinutes(10)));
    store.applyFull(OWNER, copy(ownerNow));
    pass(Duration.ofSeconds(30));
    store.applyDelta(OWNER, new Message.SessionDelta("s", 1, 1, 2, metadata(ownerNow + 30_000), Map.of(), java.util.Set.of()));

    assertThat(vouchedLastAccess()).isEqualTo(millis(START.plusSeconds(30)) - LAG);
  }

  private long vouchedLastAccess() {
    return store.entry("s").orElseThrow().vouchedSnapshot(LAG).metadata().lastAccessedTime();
  }

  private void pass(Duration duration) {
    timeOfDay.advance(duration);
    ticker.advance(duration);
  }

  private static SessionSnapshot copy(long lastAccess) {
    return new SessionSnapshot("s", 1, 1, metadata(lastAccess), Map.of());
  }

  private static SessionMetadata metadata(long lastAccess) {
    return new SessionMetadata(lastAccess - 1_000, lastAccess, 1800, null, null, Map.of());
  }

  private static Message.TouchBatch touch(long lastAccess) {
    return new Message.TouchBatch(List.of(new Message.Touch("s", 1, lastAccess)));
  }

  private static long millis(Instant instant) {
    return instant.toEpochMilli();
  }
}
