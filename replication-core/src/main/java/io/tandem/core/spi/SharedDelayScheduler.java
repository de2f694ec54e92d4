package io.tandem.core.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The production {@link Scheduler.Lane#TIMEOUTS}: one-shot tasks on the JDK's shared {@code CompletableFuture} delay
 * thread, run there directly, as {@link CompletableFuture#completeOnTimeout} ran the timeouts it armed. The engine owns
 * no thread for them and closing stops nothing, so a timeout armed before the engine closed still completes its future.
 *
 * <p>Implementation notes: stateless; a cancelled task stays in the JDK's queue until it falls due and then does
 * nothing, as a {@code completeOnTimeout} whose future completed first did before it was cancelled.
 */
final class SharedDelayScheduler implements Scheduler {
  static final SharedDelayScheduler INSTANCE = new SharedDelayScheduler();

  private SharedDelayScheduler() {}

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    AtomicBoolean cancelled = new AtomicBoolean();
    CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS, Runnable::run).execute(() -> {
      if (!cancelled.get()) {
        task.run();
      }
    });
    return () -> cancelled.set(true);
  }

  @Override
  public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
    throw new UnsupportedOperationException("the shared delay thread runs one-shot timeouts only");
  }

  @Override
  public Cancellable scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
    throw new UnsupportedOperationException("the shared delay thread runs one-shot timeouts only");
  }

  /** Nothing to stop: the thread is the JDK's, and timeouts armed before still fire ({@link Lane#TIMEOUTS}). */
  @Override
  public void close() {}
}
