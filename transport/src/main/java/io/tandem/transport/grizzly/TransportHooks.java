package io.tandem.transport.grizzly;

/** Points where a test can interleave a thread deterministically; no-ops in production. */
interface TransportHooks {
  TransportHooks NONE = new TransportHooks() {};

  /** A send checked that its connection is open and is about to register its pending reply. */
  default void beforeRegisteringReply(PeerConnection connection) {}

  /** A connection's pending replies have been failed. */
  default void afterClosed(PeerConnection connection) {}
}
