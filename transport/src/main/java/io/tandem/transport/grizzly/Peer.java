package io.tandem.transport.grizzly;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import io.tandem.transport.grizzly.WaitingRequests.Waiting;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One member of the view, or one peer that authenticated, as this transport sees it: where it listens, the connection
 * requests go on, this node's attempt to connect to it ({@link PeerDial}), the requests waiting for a connection, and
 * what is known about the loss of its last connection. Its {@link State} is what a request to it meets:
 *
 * <pre>
 *   DISCONNECTED --authenticated--> READY --closed, still a member--> LOST --its host refused a new one--> REFUSED
 *   READY --closed, not a member (or the transport closing)--> DISCONNECTED
 *   LOST, REFUSED --authenticated--> READY          any --left the view--> DISCONNECTED
 *   DISCONNECTED --back in the view, a connection kept for its replies still open--> READY
 * </pre>
 *
 * <p>The dial runs beside it: a lost or refused peer is redialed, and its requests do not wait again meanwhile.
 *
 * <p>Implementation notes: every field is guarded by {@code lock} (its {@link PeerDial} shares it), held only for the
 * bookkeeping: the caller does the I/O, writes and future completions a transition calls for, after it returns.
 * {@code current} and {@code waiting} are also volatile, so that a send can find a ready connection with nothing
 * queued before it without the lock (see {@link RequestSender}). Entries are never removed from the {@link
 * PeerTable}, so a transition never races the retirement of its peer; a member that left is DISCONNECTED with no
 * address.
 */
final class Peer {
  enum State {
    /** No ready connection, and none lost since the last: requests to a member wait for one. */
    DISCONNECTED,
    /** Requests go on the ready connection. */
    READY,
    /** The ready connection closed and none is ready since; a redial check asks its host. Requests wait. */
    LOST,
    /** Since the loss its host refused a new connection: its process is gone. Requests fail at once. */
    REFUSED
  }

  /** What a request found: a connection to send on, a queue to drain onto it, a queue joined, or nothing. */
  record Admission(PeerConnection connection, WaitingRequests toDrain, boolean queued, boolean refused) {}

  /** A ready connection replaced another ({@code previous}, closed by the caller); {@code toDrain} is the caller's. */
  record Readiness(PeerConnection previous, WaitingRequests toDrain) {}

  /** A connection closed: whether it was the ready one, and the loss to check (token 0: none). */
  record Loss(boolean wasCurrent, long token, InetSocketAddress address) {}

  /** A member left the view: the connection to close once answered (or null), and the requests to fail. */
  record Departure(PeerConnection connection, List<Waiting> waiting) {}

  final NodeId id;
  private final Object lock = new Object();
  /** This node's attempt to connect; shares this peer's lock. */
  final PeerDial dial = new PeerDial(lock);
  /** Where the member listens; null while it is not a member of the view. */
  @GuardedBy("lock")
  private InetSocketAddress address;
  @GuardedBy("lock")
  private State state = State.DISCONNECTED;
  /** The ready connection; non-null exactly in READY. */
  @GuardedBy("lock")
  private volatile PeerConnection current;
  /** Created only while no connection is ready; removed once drained onto one, or failed. */
  @GuardedBy("lock")
  private volatile WaitingRequests waiting;
  /** Its connections that became ready and have not closed (one kept for its replies after the peer left, say). */
  @GuardedBy("lock")
  private final Set<PeerConnection> authenticated = new LinkedHashSet<>();
  /** Losses so far; the last one's number is the token a redial check must still match to report a refusal. */
  @GuardedBy("lock")
  private long losses;
  /** The token of the loss that LOST or REFUSED stands for; 0 when none since the peer was last ready. */
  @GuardedBy("lock")
  private long lostToken;

  Peer(NodeId id) {
    this.id = id;
  }

  /**
   * A member of the view listens at {@code listensAt}. One back in the view whose connection was kept open for its
   * pending replies gets that connection back in the same step: were the address set first, a request or a redial in
   * between would find no ready connection and dial a second one, whose handshake would then close the kept one and
   * fail the replies it was kept for.
   */
  void joined(InetSocketAddress listensAt) {
    synchronized (lock) {
      address = listensAt;
      reinstateLocked();
    }
  }

  /** Null if it was not a member. Its ready connection stays open for the replies it owes (see {@link PeerTable}). */
  Departure left() {
    synchronized (lock) {
      if (address == null) {
        return null;
      }
      address = null;
      lostToken = 0;
      PeerConnection gone = current;
      current = null;
      state = State.DISCONNECTED;
      return new Departure(gone, takeWaitingLocked());
    }
  }

  InetSocketAddress address() {
    synchronized (lock) {
      return address;
    }
  }

  /** With no ready connection, one of its authenticated connections still open becomes the ready one. */
  @GuardedBy("lock")
  private void reinstateLocked() {
    if (current != null) {
      return;
    }
    for (PeerConnection connection : authenticated) {
      if (connection.state() == PeerConnection.State.READY) {
        current = connection;
        state = State.READY;
        return;
      }
    }
  }

  /** The ready connection, read without the lock: see {@link RequestSender}'s ordering argument. */
  @SuppressWarnings("GuardedBy")
  PeerConnection readyWithoutLock() {
    return current;
  }

  /** Whether requests wait in a queue, read without the lock for the same argument. */
  @SuppressWarnings("GuardedBy")
  boolean queuedWithoutLock() {
    return waiting != null;
  }

  Admission admit(Waiting request) {
    synchronized (lock) {
      PeerConnection connection = current;
      WaitingRequests queue = waiting;
      if (queue == null && connection == null && address != null && state != State.REFUSED) {
        queue = new WaitingRequests();
        waiting = queue;
      }
      if (queue == null) {
        return new Admission(connection, null, false, state == State.REFUSED);
      }
      queue.add(request);
      if (connection != null && !queue.draining) {
        queue.draining = true; // a connection came back without draining (reinstated): this caller drains
        return new Admission(connection, queue, true, false);
      }
      return new Admission(connection, null, true, false);
    }
  }

  /** Removes a request still waiting for a connection; false if it was sent or failed already. */
  boolean expire(CompletableFuture<Message> reply) {
    synchronized (lock) {
      return waiting != null && waiting.remove(reply);
    }
  }

  /** The next requests to send in order; empty once the queue stayed empty, which then retires it. */
  List<Waiting> nextToDrain(WaitingRequests queue) {
    synchronized (lock) {
      List<Waiting> batch = queue.takeAll();
      if (batch.isEmpty() && waiting == queue) {
        waiting = null;
      }
      return batch;
    }
  }

  /** Takes every waiting request, for the caller to fail; a drainer holding the queue finds it empty and stops. */
  List<Waiting> takeWaiting() {
    synchronized (lock) {
      return takeWaitingLocked();
    }
  }

  @GuardedBy("lock")
  private List<Waiting> takeWaitingLocked() {
    WaitingRequests queue = waiting;
    waiting = null;
    return queue == null ? List.of() : queue.takeAll();
  }

  /** Starts a dial (see {@link PeerDial}); the address to dial, or null if it is ready, not a member or dialed. */
  InetSocketAddress startDial() {
    synchronized (lock) {
      return address == null || current != null || !dial.start(address) ? null : address;
    }
  }

  /** The token of the loss the peer is in, or 0: a refused redial then reports it (see {@link LossDetector}). */
  long lostToken() {
    synchronized (lock) {
      return lostToken;
    }
  }

  /** The connection authenticated: it becomes the one requests go on, and whatever was known against the peer goes. */
  Readiness ready(PeerConnection connection) {
    synchronized (lock) {
      connection.state(PeerConnection.State.READY);
      PeerConnection previous = current;
      current = connection;
      state = State.READY;
      authenticated.add(connection);
      dial.settled(connection, true);
      lostToken = 0;
      WaitingRequests queue = waiting;
      if (queue != null && queue.draining) {
        queue = null; // another connection's drainer is at work; it sends what arrives meanwhile
      } else if (queue != null) {
        queue.draining = true;
      }
      return new Readiness(previous, queue);
    }
  }

  /** One of this peer's connections closed; the ready one makes a member LOST unless the transport is closing. */
  Loss closed(PeerConnection connection, boolean transportClosing) {
    synchronized (lock) {
      authenticated.remove(connection);
      dial.settled(connection, false);
      if (current != connection) {
        return new Loss(false, 0, null);
      }
      current = null;
      if (transportClosing || address == null) {
        state = State.DISCONNECTED;
        return new Loss(true, 0, null);
      }
      state = State.LOST;
      lostToken = ++losses;
      return new Loss(true, lostToken, address);
    }
  }

  /**
   * LOST to REFUSED, if the loss {@code token} names is still the current one and the peer still a member; the
   * requests waiting, for the caller to fail, or null when the refusal is stale.
   */
  List<Waiting> refused(long token) {
    synchronized (lock) {
      if (token == 0 || token != lostToken || state != State.LOST || address == null) {
        return null;
      }
      state = State.REFUSED;
      return takeWaitingLocked();
    }
  }

  State state() {
    synchronized (lock) {
      return state;
    }
  }

  /** Whether one of its authenticated connections completed a frame within {@code withinNanos} of {@code now}. */
  boolean heardWithin(long now, long withinNanos) {
    synchronized (lock) {
      for (PeerConnection connection : authenticated) {
        long heard = connection.lastFrameAt();
        if (heard != 0 && connection.state() == PeerConnection.State.READY && now - heard <= withinNanos) {
          return true;
        }
      }
      return false;
    }
  }
}
