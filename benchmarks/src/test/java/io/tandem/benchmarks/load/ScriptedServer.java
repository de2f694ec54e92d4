package io.tandem.benchmarks.load;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A blocking server on 127.0.0.1 that answers each request head with bytes a test scripts, and counts connections:
 * accepted, and still open (a connection counts as closed once the client closed it). One thread per connection;
 * fine for the few dozen connections of a test.
 */
final class ScriptedServer implements AutoCloseable {

  /** What to do with request number {@code n} (from 1) on a connection. */
  interface Script {
    Reply reply(int n);
  }

  /** Bytes to send, then whether to close the connection. Null bytes: send nothing. */
  record Reply(byte[] bytes, boolean close) {
    static Reply of(String text) {
      return new Reply(text.getBytes(StandardCharsets.ISO_8859_1), false);
    }

    static Reply closing(String text) {
      return new Reply(text == null ? null : text.getBytes(StandardCharsets.ISO_8859_1), true);
    }

    static Reply silence() {
      return new Reply(null, false);
    }
  }

  static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "test-scripted-server");
    t.setDaemon(true);
    return t;
  });
  private final Script script;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  ScriptedServer(Script script) {
    this.script = script;
    try {
      listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    threads.execute(this::acceptLoop);
  }

  Target target() {
    return new Target("127.0.0.1", listener.getLocalPort(), "/app/page");
  }

  int accepted() {
    return accepted.get();
  }

  int open() {
    return open.get();
  }

  int requests() {
    return requests.get();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket socket = listener.accept();
        accepted.incrementAndGet();
        open.incrementAndGet();
        sockets.add(socket);
        threads.execute(() -> serve(socket));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket socket) {
    try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
      for (int n = 1; ; n++) {
        if (!readHead(in)) {
          return;
        }
        requests.incrementAndGet();
        Reply reply = script.reply(n);
        if (reply.bytes() != null) {
          out.write(reply.bytes());
          out.flush();
        }
        if (reply.close()) {
          return;
        }
      }
    } catch (IOException e) {
      // The client reset the connection: it is closed either way.
    } finally {
      sockets.remove(socket);
      open.decrementAndGet();
    }
  }

  /** Reads one request head; false when the client closed the connection first. */
  private static boolean readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    while (matched < end.length) {
      int b = in.read();
      if (b < 0) {
        return false;
      }
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return true;
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException e) {
      // Already closed.
    }
    for (Socket socket : sockets) {
      try {
        socket.close(); // unblocks its thread's read
      } catch (IOException e) {
        // Already closed.
      }
    }
    threads.shutdownNow();
  }
}
