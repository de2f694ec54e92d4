package io.tandem.transport.grizzly;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Locale;

/**
 * After a peer's connection closed: does its host refuse a new one? One plain TCP connect, hung up at once if it
 * succeeds. Only a refusal (the host answered, and nothing listens on the peer's port: its process is gone or its
 * transport closed) counts as a sign of death. A connect that succeeds (a stopped process's kernel still accepts),
 * times out (a cut network drops the packets), or fails otherwise (a blackhole route, no route to the host) says
 * nothing: such a peer leaves through the membership view's heartbeat timeout.
 *
 * <p>Blocking on purpose, as {@link MemberProbe}: checks are rare (a connection closed) and a plain socket keeps
 * them off the selector threads and out of the connection table; the acceptor sees a connection that closes before
 * its handshake, which it neither counts nor logs. Stateless; runs on the transport's check threads.
 */
final class RedialCheck {
  /** What the connect found. */
  enum Result {
    /** The host answered that nothing listens there. */
    REFUSED,
    /** Something listens (maybe a stopped process whose kernel still completes handshakes). */
    ACCEPTED,
    /** No answer in time, or another error: no sign either way. */
    INCONCLUSIVE,
    /** Accepted, then reset or closed at once: internal, {@link #dial} asks again. */
    INCONCLUSIVE_AFTER_ACCEPT
  }

  private RedialCheck() {}

  /**
   * How long an accepted check connection is watched for a reset. A killed process closes its descriptors one by one
   * after its memory is gone: the connection to this node may close while its listener still accepts for a moment;
   * the connect then succeeds and is reset as the listener closes. Measured on loopback: the reset follows at once.
   */
  static final Duration RESET_WATCH = Duration.ofMillis(50);

  static Result dial(InetSocketAddress address, Duration timeout) {
    Result first = connect(address, timeout, true);
    // Accepted, then reset or closed by a listener that was closing: ask once more; a dying host now refuses.
    return first == Result.INCONCLUSIVE_AFTER_ACCEPT ? publicResult(connect(address, timeout, false)) : first;
  }

  private static Result publicResult(Result result) {
    return result == Result.INCONCLUSIVE_AFTER_ACCEPT ? Result.INCONCLUSIVE : result;
  }

  private static Result connect(InetSocketAddress address, Duration timeout, boolean watch) {
    try (Socket socket = new Socket()) {
      socket.setSoLinger(true, 0); // hang up with a reset: a live peer keeps no connection, and this node no TIME_WAIT
      socket.connect(address, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
      if (!watch) {
        return Result.ACCEPTED;
      }
      socket.setSoTimeout((int) RESET_WATCH.toMillis());
      try {
        // A live acceptor waits for the dialer's hello and says nothing; a closing listener resets the connection.
        return socket.getInputStream().read() < 0 ? Result.INCONCLUSIVE_AFTER_ACCEPT : Result.ACCEPTED;
      } catch (SocketTimeoutException e) {
        return Result.ACCEPTED;
      } catch (IOException e) {
        return Result.INCONCLUSIVE_AFTER_ACCEPT;
      }
    } catch (IOException e) {
      return ofConnectFailure(e);
    } catch (RuntimeException e) {
      return Result.INCONCLUSIVE;
    }
  }

  /**
   * What a connect that threw {@code failure} found. The JDK throws {@link ConnectException} for ECONNREFUSED and for
   * a kernel ETIMEDOUT; only the first is a refusal. A connect reset before it returned was accepted by the kernel
   * and reset before this thread saw it complete, as a closing listener resets what it queued: the same as a check
   * connection accepted and then reset ({@link #dial} asks again).
   */
  static Result ofConnectFailure(IOException failure) {
    String message = String.valueOf(failure.getMessage()).toLowerCase(Locale.ROOT);
    if (failure instanceof ConnectException) {
      return message.contains("refused") ? Result.REFUSED : Result.INCONCLUSIVE;
    }
    if (failure instanceof SocketException && message.contains("reset")) {
      return Result.INCONCLUSIVE_AFTER_ACCEPT;
    }
    return Result.INCONCLUSIVE;
  }
}
