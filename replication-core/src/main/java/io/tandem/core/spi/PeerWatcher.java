package io.tandem.core.spi;

/**
 * What a transport can tell about a peer before the membership view does. A killed process is not silent: the
 * connection to it closes and its host refuses a new one at once. A peer that hangs, or whose network is cut, gives
 * no such sign; only the view's failure detection (a heartbeat timeout) finds it gone.
 *
 * <p>Events for one transport arrive one at a time, in the order the transport saw them, on a thread of the
 * transport's that does no I/O (never a selector thread). A watcher must not block.
 */
public interface PeerWatcher {
  PeerWatcher NONE = new PeerWatcher() {
    @Override
    public void peerRefused(NodeId peer, String detail) {}

    @Override
    public void peerConnected(NodeId peer) {}
  };

  /**
   * The connection to {@code peer} closed and a new one was refused at once (connection refused): nothing listens
   * where the peer listened, so its process is gone or its transport is closed.
   */
  void peerRefused(NodeId peer, String detail);

  /** An authenticated connection to {@code peer} is ready (again): whatever was refused before is alive now. */
  void peerConnected(NodeId peer);
}
