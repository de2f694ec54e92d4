package io.tandem.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {
  private final ManualTicker ticker = new ManualTicker();
  private final ManualScheduler scheduler = new ManualScheduler(ticker);
  private final Scheduler maintenance = scheduler.create(Scheduler.Lane.MAINTENANCE, new NodeId("n1"));
  private final Scheduler watch = scheduler.create(Scheduler.Lane.PAUSE_WATCH, new NodeId("n1"));
  private final List<String> ran = new ArrayList<>();

  private Runnable record(String name) {
    return () -> ran.add(name + "@" + Duration.ofNanos(ticker.read()).toMillis());
  }

  @Test
  void tasks_runOnlyWhenTimeMoves_byDueTimeThenScheduleOrder_acrossLanes() {
    maintenance.schedule(record("b"), Duration.ofMillis(20));
    watch.schedule(record("a"), Duration.ofMillis(10));
    maintenance.schedule(record("c"), Duration.ofMillis(20));
    maintenance.execute(record("now"));
    assertThat(ran).isEmpty();

    assertThat(scheduler.advance(Duration.ofMillis(15))).isEqualTo(2);
    assertThat(ran).containsExactly("now@0", "a@10");
    assertThat(ticker.read()).isEqualTo(Duration.ofMillis(15).toNanos());

    assertThat(scheduler.runNext()).isTrue();
    assertThat(scheduler.runNext()).isTrue();
    assertThat(scheduler.runNext()).isFalse();
    assertThat(ran).containsExactly("now@0", "a@10", "b@20", "c@20");
  }

  @Test
  void afterTheTickerJumped_aFixedRateTaskCatchesUp_aFixedDelayOneRunsOnce() {
    watch.scheduleAtFixedRate(record("rate"), Duration.ofMillis(100), Duration.ofMillis(100));
    maintenance.scheduleWithFixedDelay(record("delay"), Duration.ofMillis(100), Duration.ofMillis(100));

    ticker.advance(Duration.ofMillis(350)); // nothing ran meanwhile: a frozen JVM
    assertThat(ran).isEmpty();
    scheduler.runDue();

    assertThat(ran).containsExactly("rate@350", "delay@350", "rate@350", "rate@350");
    assertThat(scheduler.pending(new NodeId("n1"), Scheduler.Lane.PAUSE_WATCH)).isEqualTo(1);
    scheduler.advance(Duration.ofMillis(100));
    assertThat(ran).endsWith("rate@400", "delay@450");
  }

  @Test
  void cancelledAndClosed_runNoMore_andAClosedLaneDropsNewTasks() {
    Scheduler.Cancellable cancelled = maintenance.schedule(record("cancelled"), Duration.ofMillis(10));
    watch.scheduleAtFixedRate(record("watch"), Duration.ofMillis(10), Duration.ofMillis(10));
    cancelled.cancel();
    watch.close();
    watch.execute(record("after-close"));

    scheduler.advance(Duration.ofSeconds(1));

    assertThat(ran).isEmpty();
    assertThat(scheduler.describe()).isEmpty();
  }

  @Test
  void aTaskThatThrows_reachesTheTest_andAPeriodicOneRunsNoMore() {
    maintenance.scheduleWithFixedDelay(() -> {
      throw new IllegalStateException("bug");
    }, Duration.ofMillis(10), Duration.ofMillis(10));

    assertThatThrownBy(() -> scheduler.advance(Duration.ofMillis(50))).hasMessage("bug");
    assertThat(scheduler.advance(Duration.ofMillis(50))).isZero();
  }

  @Test
  void aTaskThatReschedulesItselfForNow_isStopped() {
    Runnable[] forever = new Runnable[1];
    forever[0] = () -> maintenance.execute(forever[0]);
    maintenance.execute(forever[0]);

    assertThatThrownBy(scheduler::runDue).hasMessageContaining("reschedules itself");
  }
}
