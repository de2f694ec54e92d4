package io.tandem.core.spi;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A {@link Scheduler} on one daemon thread of its own: the single-thread scheduled executor the engine created for
 * each lane before its schedulers were injected, with the same thread name.
 *
 * <p>Implementation notes: the executor is the only state, and thread-safe. It refuses a task only once shut down, and
 * such a task is dropped (see the contract of {@link Scheduler#close()}).
 */
final class ExecutorScheduler implements Scheduler {
  private final ScheduledExecutorService executor;

  ExecutorScheduler(String threadName) {
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    return unlessClosed(() -> executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS));
  }

  @Override
  public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
    return unlessClosed(() ->
        executor.scheduleAtFixedRate(task, initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS));
  }

  @Override
  public Cancellable scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
    return unlessClosed(() ->
        executor.scheduleWithFixedDelay(task, initialDelay.toNanos(), delay.toNanos(), TimeUnit.NANOSECONDS));
  }

  @Override
  public void execute(Runnable task) {
    unlessClosed(() -> {
      executor.execute(task);
      return null;
    });
  }

  private Cancellable unlessClosed(Supplier<Future<?>> scheduling) {
    try {
      Future<?> scheduled = scheduling.get();
      return scheduled == null ? Cancellable.NONE : () -> scheduled.cancel(false);
    } catch (RejectedExecutionException refused) {
      if (executor.isShutdown()) {
        return Cancellable.NONE;
      }
      throw refused;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
