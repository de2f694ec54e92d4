package io.tandem.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The production schedulers: the engine's threads as they were before they were injected. */
class SystemSchedulersTest {
  private static final NodeId NODE = new NodeId("n1");

  @Test
  void maintenanceAndPauseWatch_runOnTheirOwnNamedDaemonThreads() throws Exception {
    for (Scheduler.Lane lane : new Scheduler.Lane[] {Scheduler.Lane.MAINTENANCE, Scheduler.Lane.PAUSE_WATCH}) {
      Scheduler scheduler = Scheduler.Factory.system().create(lane, NODE);
      try {
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        scheduler.execute(() -> ranOn.complete(Thread.currentThread()));

        Thread thread = ranOn.get(5, TimeUnit.SECONDS);
        assertThat(thread.getName()).isEqualTo("tandem-" + lane.role() + "-n1");
        assertThat(thread.isDaemon()).isTrue();
      } finally {
        scheduler.close();
      }
    }
    assertThat(Scheduler.Lane.MAINTENANCE.role()).isEqualTo("maintenance");
    assertThat(Scheduler.Lane.PAUSE_WATCH.role()).isEqualTo("pause-watch");
  }

  @Test
  void aClosedScheduler_dropsWhatIsScheduledWithoutAnError() throws Exception {
    Scheduler scheduler = Scheduler.Factory.system().create(Scheduler.Lane.MAINTENANCE, NODE);
    AtomicInteger ran = new AtomicInteger();
    scheduler.schedule(ran::incrementAndGet, Duration.ofMillis(200));
    scheduler.close();

    scheduler.execute(ran::incrementAndGet);
    scheduler.schedule(ran::incrementAndGet, Duration.ZERO).cancel();
    scheduler.scheduleWithFixedDelay(ran::incrementAndGet, Duration.ZERO, Duration.ofMillis(1));

    // A task scheduled before close at 200 ms would have run by the time this one, on the JDK's delay thread, does.
    CompletableFuture<Void> later = new CompletableFuture<>();
    Scheduler.Factory.system().create(Scheduler.Lane.TIMEOUTS, NODE)
        .schedule(() -> later.complete(null), Duration.ofMillis(400));
    later.get(5, TimeUnit.SECONDS);
    assertThat(ran).hasValue(0);
  }

  @Test
  void aTimeout_firesOnTheSharedDelayThreadEvenAfterClose_unlessCancelled() throws Exception {
    Scheduler timeouts = Scheduler.Factory.system().create(Scheduler.Lane.TIMEOUTS, NODE);
    CompletableFuture<String> fired = new CompletableFuture<>();
    AtomicInteger cancelledRan = new AtomicInteger();
    // Far enough out that a thread descheduled on a loaded machine still cancels before it falls due (at 10 ms it
    // once ran first).
    timeouts.schedule(cancelledRan::incrementAndGet, Duration.ofMillis(500)).cancel();
    timeouts.schedule(() -> fired.complete(Thread.currentThread().getName()), Duration.ofMillis(600));
    timeouts.close(); // as the engine never does: it changes nothing

    assertThat(fired.get(5, TimeUnit.SECONDS)).isEqualTo("CompletableFutureDelayScheduler");
    assertThat(cancelledRan).hasValue(0);
    assertThat(Scheduler.Factory.system().create(Scheduler.Lane.TIMEOUTS, new NodeId("n2"))).isSameAs(timeouts);
    assertThatThrownBy(() -> timeouts.scheduleAtFixedRate(() -> {}, Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
