package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The pause check every request makes: no lock while there is no pause and no suspect, and no caller passes it after
 * a pause before the sessions owned then are suspect. The clock is moved by hand; nothing sleeps.
 */
class PauseGuardTest {
  private static final Duration LIVENESS = Duration.ofSeconds(10); // a deadlock bound, not a performance figure
  /** Milliseconds; the guard reads them as its ticker's nanoseconds. */
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final PauseGuard guard =
      new PauseGuard(() -> clock.get() * 1_000_000, Duration.ofMillis(1000), Duration.ofSeconds(5));

  private static Supplier<Collection<String>> owned(String... ids) {
    return () -> List.of(ids);
  }

  @Test
  void noPauseAndNoSuspect_theChecksARequestMakes_takeNoLock() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (guard) {
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, "holds-the-pause-guard");
    holder.start();
    held.await();
    try {
      assertTimeoutPreemptively(LIVENESS, () -> {
        clock.addAndGet(400);
        assertThat(guard.observe(owned("s1"))).isZero();
        assertThat(guard.isSuspect("s1")).isFalse();
        assertThat(guard.anySuspect()).isFalse();
        assertThat(guard.quarantined()).isFalse();
        guard.cleared("s1");
      });
    } finally {
      release.countDown();
      holder.join();
    }
  }

  @Test
  void stepsBelowTheThreshold_areNoPause_evenWhenTheyAddUpPastIt_oneStepAboveIs() {
    for (int step = 0; step < 5; step++) {
      clock.addAndGet(900);
      assertThat(guard.observe(owned("s1"))).isZero();
    }
    clock.addAndGet(1500);

    assertThat(guard.observe(owned("s1"))).isEqualTo(1500);
    assertThat(guard.isSuspect("s1")).isTrue();
    assertThat(guard.quarantined()).isTrue();
    assertThat(guard.observe(owned("s1"))).as("reported once").isZero();
  }

  @Test
  void pauseSeenByTwoThreadsAtOnce_theSecondReturnsOnlyOnceTheSuspectsAreRecorded_andOnlyTheFirstReportsIt()
      throws Exception {
    CountDownLatch listing = new CountDownLatch(1);
    CountDownLatch listed = new CountDownLatch(1);
    clock.addAndGet(5000); // the pause
    CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> guard.observe(() -> {
      listing.countDown();
      try {
        listed.await(); // the first thread is recording the pause: it is listing the sessions owned now
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return List.of("s1", "s2");
    }));
    listing.await();
    AtomicLong secondSaw = new AtomicLong(-1);
    Thread second = new Thread(() -> {
      long paused = guard.observe(owned("s1", "s2"));
      secondSaw.set(guard.isSuspect("s2") ? paused : -2);
    }, "second-request");
    second.start();

    await().atMost(LIVENESS).until(() -> second.getState() == Thread.State.BLOCKED);
    assertThat(secondSaw).as("not past the check while the suspects are being recorded").hasValue(-1);
    listed.countDown();
    second.join(LIVENESS.toMillis());

    assertThat(first.get(LIVENESS.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(5000);
    assertThat(secondSaw).as("saw no pause of its own, and s2 suspect").hasValue(0);
  }

  @Test
  void lastSuspectCleared_theChecksAreLockFreeAgain_untilTheNextIsolation() {
    guard.isolated(List.of("a", "b"));
    assertThat(guard.anySuspect()).isTrue();

    guard.cleared("a");
    assertThat(guard.isSuspect("b")).isTrue();
    guard.cleared("b");

    assertThat(guard.anySuspect()).isFalse();
    assertThat(guard.isSuspect("b")).isFalse();
    assertThat(guard.suspectCount()).isZero();
    guard.isolated(List.of("c"));
    assertThat(guard.isSuspect("c")).isTrue();
  }

  @Test
  void quarantine_liftsOnlyOnceSettledAndOthersAreInView() {
    clock.addAndGet(2000);
    assertThat(guard.observe(owned())).isEqualTo(2000);

    clock.addAndGet(900);
    assertThat(guard.observe(owned())).isZero();
    assertThat(guard.liftIfSettled(true)).as("too soon").isFalse();
    for (int i = 0; i < 5; i++) {
      clock.addAndGet(900);
      assertThat(guard.observe(owned())).as("steps below the threshold").isZero();
    }
    assertThat(guard.liftIfSettled(false)).as("alone").isFalse();
    assertThat(guard.liftIfSettled(true)).isTrue();
    assertThat(guard.quarantined()).isFalse();
  }
}
