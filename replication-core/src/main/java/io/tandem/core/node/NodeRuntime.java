package io.tandem.core.node;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.util.Objects;

/**
 * What a node has once per cluster, whatever number of applications it runs: one transport and one membership member,
 * started by the first context and shared by every context that names the cluster. Each context's engine runs on
 * {@link #transportFor} and {@link #membershipFor}, which scope both to the context; the engine itself does not know
 * it shares them.
 *
 * <p>Who owns what: the runtime owns the shared transport, the shared membership (it starts and closes both), the
 * directory of contexts and its thread, and the dispatcher. It keeps the shared transport on the shared view (the one
 * listener of the shared membership). Counting the contexts that use it, and closing it when the last one leaves, is
 * the caller's (the container adapter's registry), which also decides which contexts may share it.
 *
 * <p>Implementation notes: immutable once built; {@link #start} and {@link #close} are called once each, by one
 * thread.
 */
public final class NodeRuntime implements AutoCloseable {
  private final Transport transport;
  private final Membership membership;
  private final ContextDirectory directory;
  private final ContextDispatcher dispatcher;
  private final Duration attachWait;

  /**
   * @param directoryThread the scheduler the directory of contexts owns its state on ({@code tandem-contexts-<node>}
   *     in production: {@link Scheduler#singleThread})
   * @param incarnation names this run of the runtime to the other members (any value another run is unlikely to take)
   * @param attachWait how long a context's start waits for the members to say which contexts they run, and its stop
   *     for them to hear it left
   */
  public NodeRuntime(Transport transport, Membership membership, Scheduler directoryThread, long incarnation,
      Duration attachWait) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.membership = Objects.requireNonNull(membership, "membership");
    this.directory = new ContextDirectory(transport.localNode(), transport, directoryThread, incarnation);
    this.dispatcher = new ContextDispatcher(transport.localNode(), directory);
    this.attachWait = attachWait;
  }

  /** Starts the shared transport, joins the cluster, and follows its views. */
  public void start() throws Exception {
    transport.watchPeers(dispatcher);
    transport.start(dispatcher);
    membership.start();
    membership.addViewListener(view -> {
      transport.updatePeers(view); // before any context's engine can send to a member that just entered
      directory.sharedViewChanged(view);
    });
  }

  public NodeId localNode() {
    return transport.localNode();
  }

  /** {@code context}'s view of the shared transport; its requests wait {@code requestTimeout} unless told otherwise. */
  public ContextTransport transportFor(String context, Duration requestTimeout) {
    return new ContextTransport(context, transport, dispatcher, directory, requestTimeout);
  }

  /** {@code context}'s view of the shared membership: the members that run it. */
  public ContextMembership membershipFor(String context) {
    return new ContextMembership(context, directory, attachWait);
  }

  /** Requests this node refused because they named a context it does not run. */
  public long refusedNotDeployed() {
    return dispatcher.refusedNotDeployed();
  }

  /** Requests this node refused because they named no context (a peer speaking another protocol). */
  public long refusedWithoutContext() {
    return dispatcher.refusedWithoutContext();
  }

  /** Leaves the cluster, closes the shared transport, and stops the directory's thread. */
  @Override
  public void close() {
    try {
      membership.close();
    } finally {
      try {
        transport.close();
      } finally {
        directory.close();
      }
    }
  }
}
