package io.tandem.core.node;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One context's view of the node's shared membership: the members of the shared view that run the context (see
 * {@link ContextDirectory}). Starting attaches the context on this node, which every member is told, and returns once
 * each answered which contexts it runs (or {@code attachWait} passed); closing detaches it, and the members drop this
 * node from the context's view, as if it had left: their engines re-protect what it held of the context.
 *
 * <p>Implementation notes: immutable; the directory owns every view.
 */
public final class ContextMembership implements Membership {
  private final String context;
  private final ContextDirectory directory;
  private final Duration attachWait;

  ContextMembership(String context, ContextDirectory directory, Duration attachWait) {
    this.context = context;
    this.directory = directory;
    this.attachWait = attachWait;
  }

  @Override
  public NodeId localNode() {
    return directory.localNode();
  }

  @Override
  public void start() throws InterruptedException, ExecutionException {
    try {
      directory.attach(context).get(attachWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // Members silent so long enter the context's view when they answer; the engine starts on those that did.
      directory.endFirstRound(context);
    }
  }

  @Override
  public MembershipView currentView() {
    return directory.currentView(context);
  }

  @Override
  public void addViewListener(ViewListener listener) {
    directory.addViewListener(context, listener);
  }

  /** Detaches the context, waiting at most {@code attachWait} for the members to hear it; idempotent. */
  @Override
  public void close() {
    try {
      directory.detach(context).get(attachWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Members not told yet learn it from their next request of the context, which is refused.
    }
  }

  @Override
  public String toString() {
    return "ContextMembership[" + context + " of " + directory.localNode().value() + "]";
  }
}
