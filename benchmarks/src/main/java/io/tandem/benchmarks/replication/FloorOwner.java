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
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The floor's owner: N writer threads, each sending one frame and parking until its ack arrives, as a request thread
 * waits in SYNC mode; one I/O thread reads the acks and wakes the writers.
 *
 * <p>Per update (today's transport): a writer writes its own frame to the socket, one write call per frame, unless
 * bytes are already waiting for the socket (then it appends them and the I/O thread writes them on OP_WRITE), which
 * is what Grizzly's write does from the caller's thread. Batched (the group-commit target): a writer queues its
 * frame and wakes the selector only if no wake-up is pending; the I/O thread writes everything queued since its last
 * wake-up in one call.
 *
 * <p>Implementation notes: the channel's reads, {@code in}, the reader and (batched) {@code out} belong to the I/O
 * thread ({@code tandem-floor-io}); per update, {@code pending} and writes to the channel are guarded by {@code
 * writeLock}; {@code acked} (the last acknowledged sequence of each writer) is written by the I/O thread and read by
 * its writer; each writer owns its frame buffer.
 */
final class FloorOwner implements AutoCloseable {
  private final int writers;
  private final int requestBytes;
  private final boolean batched;
  private final SocketChannel channel;
  private final Selector selector;
  private final SelectionKey key;
  private final FloorFrames.Reader reader;
  private final ByteBuffer in;
  private final byte[] filler;
  private final AtomicLongArray acked;
  private final Thread[] writerThreads;
  private final Thread io;
  private final Object writeLock = new Object();
  /** Per update: bytes the socket did not take yet. Guarded by writeLock. */
  private final ByteBuffer pending;
  /** Batched: frames queued since the I/O thread last drained, as {@code sequence << 16 | writer}. */
  private final Queue<Long> queued = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  /** Batched: frames built by the I/O thread, not yet taken by the socket. */
  private final ByteBuffer out;
  private volatile boolean running = true;
  private volatile Throwable failure;

  static final int MAX_WRITERS = 1 << 16;

  FloorOwner(InetSocketAddress buddy, int writers, int requestBytes, int ackBytes, boolean batched) throws IOException {
    if (writers < 1 || writers > MAX_WRITERS) {
      throw new IllegalArgumentException("writers " + writers);
    }
    this.writers = writers;
    this.requestBytes = requestBytes;
    this.batched = batched;
    this.reader = new FloorFrames.Reader(ackBytes);
    this.in = ByteBuffer.allocateDirect(Math.max(64 << 10, (writers + 1) * ackBytes));
    this.pending = ByteBuffer.allocateDirect(Math.max(64 << 10, (writers + 1) * requestBytes));
    this.out = ByteBuffer.allocateDirect(Math.max(64 << 10, (writers + 1) * requestBytes));
    this.filler = new byte[requestBytes];
    this.acked = new AtomicLongArray(writers);
    this.channel = SocketChannel.open(buddy);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    channel.configureBlocking(false);
    this.selector = Selector.open();
    this.key = channel.register(selector, SelectionKey.OP_READ);
    this.writerThreads = new Thread[writers];
    for (int i = 0; i < writers; i++) {
      int writer = i;
      writerThreads[i] = new Thread(() -> write(writer), "tandem-floor-writer-" + (i + 1));
      writerThreads[i].setDaemon(true);
    }
    this.io = new Thread(this::ioLoop, "tandem-floor-io");
    io.setDaemon(true);
    io.start();
  }

  void startWriters() {
    for (Thread t : writerThreads) {
      t.start();
    }
  }

  /** Updates acknowledged so far, over all writers. */
  long completed() {
    long sum = 0;
    for (int i = 0; i < writers; i++) {
      sum += acked.get(i);
    }
    return sum;
  }

  Throwable failure() {
    return failure;
  }

  private void write(int writer) {
    ByteBuffer frame = ByteBuffer.allocateDirect(requestBytes);
    long sequence = 0;
    try {
      while (running) {
        sequence++;
        if (batched) {
          queued.offer(sequence << 16 | writer);
          if (!wakeupPending.getAndSet(true)) {
            selector.wakeup();
          }
        } else {
          frame.clear();
          FloorFrames.write(frame, requestBytes, writer, sequence, filler);
          frame.flip();
          send(frame);
        }
        while (acked.get(writer) < sequence && running) {
          LockSupport.park(this);
        }
      }
    } catch (IOException | RuntimeException e) {
      fail(e);
    }
  }

  private void send(ByteBuffer frame) throws IOException {
    synchronized (writeLock) {
      if (pending.position() == 0) {
        channel.write(frame);
      }
      if (frame.hasRemaining()) {
        pending.put(frame);
        key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        selector.wakeup();
      }
    }
  }

  private void ioLoop() {
    try {
      while (running) {
        selector.select(ready -> onReady());
        if (batched) {
          wakeupPending.set(false); // before draining: a frame queued after this line wakes the selector again
          for (Long item; (item = queued.poll()) != null; ) {
            FloorFrames.write(out, requestBytes, (int) (item & 0xFFFF), item >>> 16, filler);
          }
          flushOut();
        }
      }
    } catch (ClosedChannelException | ClosedSelectorException e) {
      // closed by close()
    } catch (IOException | RuntimeException e) {
      fail(e);
    }
  }

  private void onReady() {
    try {
      if (key.isWritable()) {
        if (batched) {
          flushOut();
        } else {
          synchronized (writeLock) {
            pending.flip();
            channel.write(pending);
            pending.compact();
            if (pending.position() == 0) {
              key.interestOps(SelectionKey.OP_READ);
            }
          }
        }
      }
      if (key.isReadable()) {
        if (channel.read(in) < 0) {
          throw new IOException("the buddy closed the connection");
        }
        in.flip();
        while (reader.next(in)) {
          int writer = reader.writer();
          acked.set(writer, reader.sequence());
          LockSupport.unpark(writerThreads[writer]);
        }
        in.compact();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Batched: one write call for everything built; the rest waits for OP_WRITE. */
  private void flushOut() throws IOException {
    out.flip();
    if (out.hasRemaining()) {
      channel.write(out);
    }
    out.compact();
    key.interestOps(out.position() > 0 ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
  }

  private void fail(Throwable e) {
    if (running) {
      failure = e;
      running = false;
      for (Thread t : writerThreads) {
        LockSupport.unpark(t);
      }
    }
  }

  @Override
  public void close() throws IOException {
    running = false;
    for (Thread t : writerThreads) {
      LockSupport.unpark(t);
    }
    selector.wakeup();
    try {
      io.join(5000);
      for (Thread t : writerThreads) {
        t.join(5000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    selector.close();
    channel.close();
  }
}
