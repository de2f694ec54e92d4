package io.tandem.benchmarks.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One virtual user: its session flow, its one keep-alive connection and the request in flight.
 *
 * <p>Implementation notes: a plain state holder, owned by the {@link EventLoop} thread its user was dealt to; that
 * loop alone reads and writes it, so nothing here is synchronized. The loop holds the logic.
 */
final class VirtualUser {

  enum Phase {
    /** Waiting for its intended send time; the connection, if open, is idle. */
    THINKING,
    CONNECTING,
    WRITING,
    READING,
    /** No more requests in this step. */
    DONE
  }

  final int id;
  final InetSocketAddress address;
  final PageScript script;
  final HttpResponseParser parser = new HttpResponseParser(PageScript.SESSION_COOKIE);

  Phase phase = Phase.THINKING;
  /** When the current or next request is meant to leave, on the {@code nanoTime} scale. */
  long intended;
  /** Counts the user's requests, so a timeout armed for an earlier one can tell it is stale. */
  long exchange;
  /** The unwritten rest of the current request; null once written. */
  ByteBuffer request;

  SocketChannel channel;
  SelectionKey key;
  /** The connection already carried a complete response, so a close before any reply can be a keep-alive race. */
  boolean reused;
  /** The current request was already resent once after such a race. */
  boolean retried;

  VirtualUser(int id, InetSocketAddress address, PageScript script) {
    this.id = id;
    this.address = address;
    this.script = script;
  }

  boolean inFlight() {
    return phase == Phase.CONNECTING || phase == Phase.WRITING || phase == Phase.READING;
  }

  /** Closes the connection, if any; the next request opens a new one. */
  void closeConnection() {
    if (key != null) {
      key.cancel();
      key = null;
    }
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing to do: the socket is gone either way, and the request's outcome is already decided.
      }
      channel = null;
    }
    reused = false;
  }
}
