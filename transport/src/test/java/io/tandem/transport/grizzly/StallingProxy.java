package io.tandem.transport.grizzly;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay between a node and a peer's listener that can play a hung peer: {@link #stall()} stops forwarding
 * while every connection stays open and new ones are still accepted (as a SIGSTOPped process's kernel does), and
 * {@link #dropConnections()} closes the open connections while the listener keeps accepting and relaying. {@link
 * #pause()} plays a peer that stops running for a while (a long collection pause, a CPU quota spent): bytes are
 * held, not dropped, and delivered in order on {@link #resume()}.
 *
 * <p>Implementation notes: one accept thread, two pump threads per relayed connection; {@code stalled} is volatile
 * and read by the pumps before each write; {@code paused} is guarded by {@code this}, and a pump waits on {@code this}
 * while it is set, before writing what it read; {@code open} is a copy-on-write list of every socket the relay holds.
 */
final class StallingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean stalled;
  @GuardedBy("this")
  private boolean paused;
  private volatile boolean closed;

  StallingProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "stalling-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** From now on nothing is forwarded either way; connections stay open, new ones are accepted and held. */
  void stall() {
    stalled = true;
  }

  /** From now on nothing is forwarded until {@link #resume()}; what arrives meanwhile is delivered then, in order. */
  synchronized void pause() {
    paused = true;
  }

  synchronized void resume() {
    paused = false;
    notifyAll();
  }

  private synchronized void awaitResumed() throws InterruptedException {
    while (paused) {
      wait();
    }
  }

  /** Closes every relayed connection; the listener goes on accepting and relaying new ones. */
  void dropConnections() {
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        open.add(client);
        if (stalled) {
          continue; // held open, never relayed
        }
        Socket upstream = new Socket();
        upstream.connect(target, 2_000);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread pump = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (stalled) {
            continue; // swallowed: the peer "hangs"
          }
          awaitResumed();
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side closed
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "stalling-proxy-pump");
    pump.setDaemon(true);
    pump.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    dropConnections();
  }
}
