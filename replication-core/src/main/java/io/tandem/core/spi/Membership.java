package io.tandem.core.spi;

/**
 * Who is alive. Implementations deliver views to listeners one at a time, in increasing view id order, never
 * concurrently; a listener that throws does not stop later views from being delivered.
 */
public interface Membership extends AutoCloseable {

  NodeId localNode();

  /** Joins the cluster; returns once the first view containing the local node is known. */
  void start() throws Exception;

  MembershipView currentView();

  /** The listener receives the current view right away, then every later view in order. */
  void addViewListener(ViewListener listener);

  /** Leaves the cluster. Idempotent. */
  @Override
  void close();

  @FunctionalInterface
  interface ViewListener {
    void viewChanged(MembershipView view);
  }
}
