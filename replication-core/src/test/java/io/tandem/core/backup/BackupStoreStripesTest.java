package io.tandem.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The store's striped locking: updates of different sessions do not wait for each other or for the orphan scan, and
 * the byte bound stays exact and a bound when updates of many sessions race for the last room.
 */
class BackupStoreStripesTest {
  private static final NodeId LIVE = new NodeId("live");
  private static final NodeId DEAD = new NodeId("dead");
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final ExecutorService threads = Executors.newFixedThreadPool(4);

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
  }

  private SessionSnapshot full(String id, long version, int bytes) {
    return new SessionSnapshot(id, 1, version, SessionMetadata.created(clock.millis(), 60),
        Map.of("v", Blob.wrap(new byte[bytes])));
  }

  /** An id whose stripe differs from {@code other}'s. */
  private static String idOnAnotherStripe(String prefix, String other) {
    for (int i = 0; ; i++) {
      String id = prefix + i;
      if (BackupStore.stripeIndex(id) != BackupStore.stripeIndex(other)) {
        return id;
      }
    }
  }

  @Test
  void expireOrphans_whileItAsksAboutAnOwner_anUpdateOfAnotherSessionIsApplied() throws Exception {
    BackupStore store = new BackupStore(clock, Duration.ofMinutes(10));
    String orphan = "orphan";
    String busy = idOnAnotherStripe("busy", orphan);
    store.applyFull(DEAD, full(orphan, 1, 10));
    CountDownLatch scanning = new CountDownLatch(1);
    CountDownLatch updated = new CountDownLatch(1);

    // The scan asks whether the orphan's owner is alive, and does not answer until the other update was applied:
    // with one store-wide lock held across the scan, that update would wait for the scan, and the scan for it.
    Future<List<String>> scan = threads.submit(() -> store.expireOrphans(owner -> {
      scanning.countDown();
      try {
        return !updated.await(10, TimeUnit.SECONDS); // alive only if the update never came
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return true;
      }
    }, -clock.millis()));
    assertThat(scanning.await(10, TimeUnit.SECONDS)).isTrue();
    Future<Message> update = threads.submit(() -> store.applyFull(LIVE, full(busy, 1, 10)));

    assertThat(update.get(10, TimeUnit.SECONDS)).isInstanceOf(Message.Ack.class);
    updated.countDown();
    assertThat(scan.get(10, TimeUnit.SECONDS)).containsExactly(orphan);
    assertThat(store.entry(busy)).isPresent();
    assertThat(store.entry(orphan)).isEmpty();
  }

  @Test
  void applyDelta_manySessionsRacingForTheLastRoom_bytesHeldStaysExactAndWithinTheBound() throws Exception {
    long bound = 20_000;
    BackupStore store = new BackupStore(clock, Duration.ofMinutes(10), bound);
    int sessions = 32;
    for (int i = 0; i < sessions; i++) {
      store.applyFull(LIVE, full("s" + i, 1, 100));
    }
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int writer = w;
      writers.add(CompletableFuture.runAsync(() -> {
        for (int round = 0; round < 50; round++) {
          for (int i = writer; i < sessions; i += 4) {
            String id = "s" + i;
            long base = store.entry(id).orElseThrow().snapshot().version();
            // Grows by 40 bytes a round until the store is full, then is refused.
            store.applyDelta(LIVE, new Message.SessionDelta(id, 1, base, base + 1, null,
                Map.of("v" + round, Blob.wrap(new byte[30])), Set.of()));
            assertThat(store.bytesHeld()).isLessThanOrEqualTo(bound);
          }
        }
      }, threads));
    }
    CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    long held = 0;
    for (int i = 0; i < sessions; i++) {
      held += store.entry("s" + i).orElseThrow().snapshot().serializedSize();
    }
    assertThat(store.bytesHeld()).isEqualTo(held).isLessThanOrEqualTo(bound);
    assertThat(store.stats().refusedFull()).isPositive();
  }
}
