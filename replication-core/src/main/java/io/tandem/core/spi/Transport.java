package io.tandem.core.spi;

import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Moves messages between members.
 *
 * <p>Contract (checked by {@code TransportContract} in the test jar):
 *
 * <ul>
 *   <li>Requests to one peer are delivered to its handler in the order {@link #request} was called, and that
 *       handler is never called concurrently for one sending peer.
 *   <li>Every request future completes: with the peer's reply, or exceptionally with {@link
 *       PeerUnreachableException} (no connection, or the peer closed it) or {@link
 *       java.util.concurrent.TimeoutException} (no reply within the timeout given at construction). It never
 *       blocks the caller to wait for the network; a full outbound queue completes it with {@link
 *       BackPressureException}.
 *   <li>A handler that throws makes the request fail with {@link RemoteHandlerException}; the transport keeps
 *       serving.
 *   <li>Messages are bytes on the way: only what the wire format can carry arrives.
 * </ul>
 */
public interface Transport extends AutoCloseable {

  NodeId localNode();

  /** The address other members use to reach this node, advertised through membership. */
  String localAddress();

  /** Starts accepting requests; the handler answers every request the node receives. */
  void start(RequestHandler handler) throws Exception;

  /** Tells the transport where a member listens. Called by the engine on every view change. */
  void updatePeers(MembershipView view);

  /** Sends a request for a caller that waits for its reply: the transport may write it on the caller's thread. */
  CompletableFuture<Message> request(NodeId peer, Message message);

  /**
   * {@link #request(NodeId, Message)} whose reply may take up to {@code timeout} instead of the transport's own
   * request timeout: for a caller that decides itself how long to wait (a SYNC flush waits on a buddy that is slow but
   * still connected, rather than re-sending the session to it). A transport without per-request timeouts applies its
   * own, which only makes such a caller give up sooner.
   */
  default CompletableFuture<Message> request(NodeId peer, Message message, Duration timeout) {
    return request(peer, message);
  }

  /**
   * Sends a request for a caller with more to send right after (the ASYNC sender): the transport may leave the write
   * to its own I/O thread, to write it together with the requests that follow. Same contract and same order as
   * {@link #request}: requests to one peer arrive in the order either method was called.
   */
  default CompletableFuture<Message> requestBatched(NodeId peer, Message message) {
    return request(peer, message);
  }

  /**
   * {@link #requestBatched(NodeId, Message)} whose reply may take up to {@code timeout}, as {@link #request(NodeId,
   * Message, Duration)}; a transport without per-request timeouts applies its own.
   */
  default CompletableFuture<Message> requestBatched(NodeId peer, Message message, Duration timeout) {
    return requestBatched(peer, message);
  }

  /**
   * Reports peers whose connection closed and whose redial was refused, and peers connected again (see {@link
   * PeerWatcher}). Called once, before {@link #start}. A transport that cannot tell a refusal from silence reports
   * nothing, and the engine waits for the membership view as before.
   */
  default void watchPeers(PeerWatcher watcher) {}

  /**
   * Dials {@code member}'s transport address once, outside the connection table, and tells whether its host refused
   * at once: nothing listens there, so the process died (or its transport closed) on a host that runs. A connect
   * that succeeds, times out, or fails otherwise (a cut network, a blackhole route) says nothing and answers false.
   * Blocks the caller for at most the transport's connect timeout. A transport that cannot tell answers false, and
   * the engine waits for other members as before.
   */
  default boolean refusesConnections(Member member) {
    return false;
  }

  /**
   * {@link #refusesConnections} without blocking the caller: the future completes with the verdict once the dial is
   * decided (within the connect timeout), on a thread of the transport's, or with false if the transport closed
   * first. By default the blocking check, run by the caller. The engine's maintenance thread dials departed members
   * this way: one silent member blocked it, and every task it runs, for a connect timeout per tick.
   */
  default CompletableFuture<Boolean> refusalOf(Member member) {
    return CompletableFuture.completedFuture(refusesConnections(member));
  }

  /**
   * Whether {@code peer} sent this node a frame within {@code within} over a connection that is still open: it ran
   * and reached this node that recently. A membership view that drops such a peer may be wrong about it (a frozen,
   * cut-off or killed peer sends nothing, or its connection closes). A transport that does not track it says false,
   * and the engine trusts the view as before.
   */
  default boolean heardFromWithin(NodeId peer, Duration within) {
    return false;
  }

  @Override
  void close();
}
