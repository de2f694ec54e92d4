package io.tandem.benchmarks.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The floor's buddy: accepts one connection and answers every frame with an ack frame, nothing else (no decoding
 * beyond the frame header, no store). Per update, it writes each ack as soon as its frame is cut, one write call per
 * ack, as today's transport answers each request; batched, it writes the acks of everything one read brought in a
 * single call, the group-commit target.
 *
 * <p>Implementation notes: one thread ({@code tandem-floor-buddy}) owns the channel, the selector, both buffers and
 * the reader; {@link #handled()} is read by the control thread through a volatile field.
 */
final class FloorBuddy implements AutoCloseable {
  private final ServerSocketChannel server;
  private final int ackBytes;
  private final boolean batched;
  private final FloorFrames.Reader reader;
  private final ByteBuffer in;
  private final ByteBuffer out;
  private final byte[] filler;
  private final Thread loop;
  private volatile long handled;
  private volatile boolean running = true;
  private volatile Selector selector;
  private volatile Throwable failure;

  /**
   * @param writers the owner's writers: each has at most one frame in flight, which bounds both buffers
   */
  FloorBuddy(int port, int requestBytes, int ackBytes, int writers, boolean batched) throws IOException {
    this.ackBytes = ackBytes;
    this.batched = batched;
    this.reader = new FloorFrames.Reader(requestBytes);
    this.in = ByteBuffer.allocateDirect(Math.max(64 << 10, (writers + 1) * requestBytes));
    this.out = ByteBuffer.allocateDirect(Math.max(64 << 10, (writers + 1) * ackBytes));
    this.filler = new byte[ackBytes];
    this.server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress("127.0.0.1", port));
    this.loop = new Thread(this::serve, "tandem-floor-buddy");
    loop.setDaemon(true);
    loop.start();
  }

  long handled() {
    return handled;
  }

  Throwable failure() {
    return failure;
  }

  private void serve() {
    try (SocketChannel channel = server.accept(); Selector sel = Selector.open()) {
      selector = sel;
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      SelectionKey key = channel.register(sel, SelectionKey.OP_READ);
      while (running) {
        sel.select(ready -> onReady(channel, key));
      }
    } catch (ClosedChannelException | ClosedSelectorException e) {
      // closed by close()
    } catch (IOException | RuntimeException e) {
      if (running) {
        failure = e;
      }
    }
  }

  private void onReady(SocketChannel channel, SelectionKey key) {
    try {
      if (key.isWritable()) {
        flush(channel, key);
      }
      if (key.isReadable()) {
        if (channel.read(in) < 0) {
          running = false;
          return;
        }
        in.flip();
        long count = handled;
        while (reader.next(in)) {
          count++;
          if (out.remaining() < ackBytes) {
            throw new IllegalStateException("ack buffer full: more frames in flight than writers");
          }
          FloorFrames.write(out, ackBytes, reader.writer(), reader.sequence(), filler);
          if (!batched) {
            flush(channel, key);
          }
        }
        handled = count;
        in.compact();
        if (batched) {
          flush(channel, key);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One write call; what the socket did not take waits for OP_WRITE. */
  private void flush(SocketChannel channel, SelectionKey key) throws IOException {
    out.flip();
    if (out.hasRemaining()) {
      channel.write(out);
    }
    out.compact();
    key.interestOps(out.position() > 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  @Override
  public void close() throws IOException {
    running = false;
    Selector sel = selector;
    if (sel != null) {
      sel.wakeup();
    }
    server.close();
    try {
      loop.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
