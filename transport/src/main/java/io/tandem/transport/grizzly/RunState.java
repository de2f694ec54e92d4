package io.tandem.transport.grizzly;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the transport runs: started once by {@code start}, closed once by {@code close}, read by every piece.
 *
 * <p>Implementation notes: volatile flags; each is set once and never cleared.
 */
final class RunState {
  private volatile boolean started;
  private final AtomicBoolean closed = new AtomicBoolean();

  void started() {
    started = true;
  }

  /** True for the one caller that closes it. */
  boolean close() {
    return closed.compareAndSet(false, true);
  }

  boolean closed() {
    return closed.get();
  }

  boolean running() {
    return started && !closed.get();
  }
}
