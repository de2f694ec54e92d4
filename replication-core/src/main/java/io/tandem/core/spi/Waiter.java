package io.tandem.core.spi;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a thread that called into the engine waits for a peer's reply or for the ring to change: a SYNC flush waiting
 * for its acknowledgement, a takeover waiting for the holder, a lookup waiting for the members' answers, a handoff
 * waiting for the buddy. Every such wait in the engine goes through this one method, and nothing else in the engine
 * blocks a thread on another.
 *
 * <p>Production blocks the calling thread ({@link #timerless()}; {@link #blocking()} is {@link Future#get(long,
 * TimeUnit)}): a Tomcat request thread waits as it did before this was injected. The deterministic simulation (issue 27) runs each waiting caller as
 * a parked actor: it hands control back to the simulator, which runs other nodes' work in virtual time, and resumes
 * the caller when the future completes or the virtual deadline passes. So a wait's timeout is measured on the
 * engine's {@link Ticker} there, and on the JVM's clock here, the same clock production's ticker reads.
 *
 * <p>Contract: returns the future's value, or throws as {@link Future#get(long, TimeUnit)} does ({@link
 * ExecutionException} with the cause, {@link TimeoutException} when {@code timeoutNanos} passed first, {@link
 * InterruptedException}). The caller holds no lock while it waits (docs/protocol.md, "Time and threads"): the
 * simulation runs other work on the same monitors meanwhile.
 */
public interface Waiter {
  <T> T await(Future<T> future, long timeoutNanos) throws InterruptedException, ExecutionException, TimeoutException;

  /** Blocks the calling thread: what the engine did before the wait was injected. */
  static Waiter blocking() {
    return BlockingWaiter.INSTANCE;
  }

  /**
   * Blocks the calling thread without arming a kernel timer per wait: the reply wakes it, and one sweeper thread wakes
   * it when its timeout passes (see {@link TimerlessWaiter}). What production uses ({@link EngineRuntime#system}).
   */
  static Waiter timerless() {
    return TimerlessWaiter.INSTANCE;
  }
}

/** {@link Waiter#blocking()}. */
final class BlockingWaiter implements Waiter {
  static final BlockingWaiter INSTANCE = new BlockingWaiter();

  private BlockingWaiter() {}

  @Override
  public <T> T await(Future<T> future, long timeoutNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    return future.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
  }
}
