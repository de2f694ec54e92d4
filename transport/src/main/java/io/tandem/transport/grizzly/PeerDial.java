package io.tandem.transport.grizzly;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * This node's attempt to connect to one peer (only the member with the lower id dials), and its backoff. It runs beside
 * the peer's {@link Peer.State}: a lost or refused peer is redialed without its requests waiting again.
 *
 * <pre>
 *   IDLE --start--> CONNECTING --connected--> HANDSHAKING --that connection ready, or closed--> IDLE
 *   CONNECTING --connect failed--> IDLE   (the {@link Dialer} redials after {@link #nextBackoff})
 * </pre>
 *
 * <p>Implementation notes: every field is guarded by the lock of the {@link Peer} it belongs to, shared so that the
 * peer can check it is not ready and start a dial in one step, and settle the dial as the connection becomes ready.
 */
final class PeerDial {
  enum State {
    IDLE,
    /** A connect to {@code address} is under way. */
    CONNECTING,
    /** The connection this node dialed is in its handshake. */
    HANDSHAKING
  }

  private final Object lock;
  @GuardedBy("lock")
  private State state = State.IDLE;
  /** CONNECTING: where to. */
  @GuardedBy("lock")
  private InetSocketAddress address;
  /** HANDSHAKING: the connection dialed. */
  @GuardedBy("lock")
  private PeerConnection connection;
  /** The last redial delay; null until a dial fails, and again once the peer is ready. */
  @GuardedBy("lock")
  private Duration backoff;

  PeerDial(Object peerLock) {
    this.lock = peerLock;
  }

  /** IDLE to CONNECTING; false if a dial is under way. The peer holds the lock and checked it is not ready. */
  boolean start(InetSocketAddress to) {
    synchronized (lock) {
      if (state != State.IDLE) {
        return false;
      }
      state = State.CONNECTING;
      address = to;
      return true;
    }
  }

  boolean connecting(SocketAddress to) {
    synchronized (lock) {
      return state == State.CONNECTING && to.equals(address);
    }
  }

  /**
   * CONNECTING to HANDSHAKING in one step: in between, a concurrent request would see neither and dial a second
   * connection, whose handshake then closes this one along with the requests already sent on it.
   */
  boolean connected(SocketAddress to, PeerConnection dialed) {
    synchronized (lock) {
      if (state != State.CONNECTING || !to.equals(address)) {
        return false;
      }
      state = State.HANDSHAKING;
      address = null;
      connection = dialed;
      return true;
    }
  }

  void failed(SocketAddress to) {
    synchronized (lock) {
      if (state == State.CONNECTING && to.equals(address)) {
        state = State.IDLE;
        address = null;
      }
    }
  }

  /** {@code settled} became ready or closed: if it is the connection dialed, the dial is over. */
  void settled(PeerConnection settled, boolean ready) {
    synchronized (lock) {
      if (ready) {
        backoff = null;
      }
      if (connection == settled) {
        state = State.IDLE;
        connection = null;
      }
    }
  }

  /** The next redial delay: {@code min} first, then doubled up to {@code max}. */
  Duration nextBackoff(Duration min, Duration max) {
    synchronized (lock) {
      backoff = backoff == null ? min : backoff.multipliedBy(2).compareTo(max) > 0 ? max : backoff.multipliedBy(2);
      return backoff;
    }
  }

  State state() {
    synchronized (lock) {
      return state;
    }
  }
}
