package io.tandem.benchmarks;

import io.tandem.core.spi.Membership;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;

/** A membership whose view never changes: benchmarks measure the steady state. */
public final class FixedMembership implements Membership {
  private final NodeId local;
  private final MembershipView view;

  public FixedMembership(NodeId local, MembershipView view) {
    this.local = local;
    this.view = view;
  }

  @Override
  public NodeId localNode() {
    return local;
  }

  @Override
  public void start() {}

  @Override
  public MembershipView currentView() {
    return view;
  }

  @Override
  public void addViewListener(ViewListener listener) {
    listener.viewChanged(view);
  }

  @Override
  public void close() {}
}
