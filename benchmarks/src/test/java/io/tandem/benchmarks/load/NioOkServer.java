package io.tandem.benchmarks.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A keep-alive server on 127.0.0.1 that answers every request head with a fixed 200, on one selector thread, so a
 * test can hold thousands of connections without thousands of threads. Counts accepted and open connections.
 */
final class NioOkServer implements AutoCloseable {

  private static final byte[] OK = ScriptedServer.OK.getBytes(StandardCharsets.ISO_8859_1);

  /** Per connection: how far into the CR LF CR LF that ends a request head, and the unsent rest of replies. */
  private static final class Connection {
    int matched;
    ByteBuffer pending;
  }

  private final Selector selector;
  private final ServerSocketChannel listener;
  private final Thread thread;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private volatile boolean closing;

  NioOkServer() {
    try {
      selector = Selector.open();
      listener = ServerSocketChannel.open();
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
      listener.configureBlocking(false);
      listener.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread = new Thread(this::serve, "test-nio-ok-server");
    thread.setDaemon(true);
    thread.start();
  }

  Target target() {
    return new Target("127.0.0.1", listener.socket().getLocalPort(), "/app/page");
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

  private void serve() {
    ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
    try {
      while (!closing) {
        selector.select();
        Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
        while (ready.hasNext()) {
          SelectionKey key = ready.next();
          ready.remove();
          if (key.isValid() && key.isAcceptable()) {
            accept();
          } else if (key.isValid()) {
            handle(key, in);
          }
        }
      }
    } catch (IOException e) {
      // Closing.
    } finally {
      for (SelectionKey key : selector.keys()) {
        try {
          key.channel().close();
        } catch (IOException e) {
          // Closing anyway.
        }
      }
      try {
        selector.close();
      } catch (IOException e) {
        // Closing anyway.
      }
    }
  }

  private void accept() throws IOException {
    SocketChannel channel;
    while ((channel = listener.accept()) != null) {
      channel.configureBlocking(false);
      channel.register(selector, SelectionKey.OP_READ, new Connection());
      accepted.incrementAndGet();
      open.incrementAndGet();
    }
  }

  private void handle(SelectionKey key, ByteBuffer in) {
    SocketChannel channel = (SocketChannel) key.channel();
    Connection connection = (Connection) key.attachment();
    try {
      if (key.isWritable()) {
        flush(key, channel, connection);
      }
      if (!key.isReadable()) {
        return;
      }
      in.clear();
      int n = channel.read(in);
      if (n < 0) {
        drop(key, channel);
        return;
      }
      in.flip();
      int replies = 0;
      while (in.hasRemaining()) {
        byte b = in.get();
        connection.matched = b == "\r\n\r\n".charAt(connection.matched) ? connection.matched + 1 : (b == '\r' ? 1 : 0);
        if (connection.matched == 4) {
          connection.matched = 0;
          replies++;
        }
      }
      if (replies > 0) {
        requests.addAndGet(replies);
        ByteBuffer out = ByteBuffer.allocate(OK.length * replies);
        for (int i = 0; i < replies; i++) {
          out.put(OK);
        }
        out.flip();
        connection.pending = connection.pending == null ? out : concat(connection.pending, out);
        flush(key, channel, connection);
      }
    } catch (IOException e) {
      drop(key, channel);
    }
  }

  private static void flush(SelectionKey key, SocketChannel channel, Connection connection) throws IOException {
    if (connection.pending != null) {
      channel.write(connection.pending);
      if (!connection.pending.hasRemaining()) {
        connection.pending = null;
      }
    }
    key.interestOps(connection.pending == null ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
  }

  private static ByteBuffer concat(ByteBuffer a, ByteBuffer b) {
    ByteBuffer joined = ByteBuffer.allocate(a.remaining() + b.remaining());
    joined.put(a).put(b).flip();
    return joined;
  }

  private void drop(SelectionKey key, SocketChannel channel) {
    key.cancel();
    try {
      channel.close();
    } catch (IOException e) {
      // Closed either way.
    }
    open.decrementAndGet();
  }

  @Override
  public void close() {
    closing = true;
    selector.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
