package io.tandem.transport.grizzly;

import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Group commit for one connection: any thread hands over an encoded frame; the connection's I/O thread writes
 * everything handed over since its last flush in one write. N requests that arrive while a flush is pending cost one
 * write and one wake-up of the I/O thread, not N writes from N request threads.
 *
 * <p>Implementation notes: {@code frames} is a lock-free multi-producer queue; only the flush, which runs on the
 * connection's I/O thread (see {@link Sink#schedule}), polls it, and {@code draining} keeps a second flush out
 * should a sink ever run one elsewhere, so frames are written in the order they were handed over. {@code scheduled} is true from the moment a producer
 * asks for a flush until that flush starts; a producer that finds it true relies on the pending flush to take its
 * frame, which it does because the flush clears the flag before it drains. {@code queuedBytes} counts bytes handed
 * over and not yet written (or dropped), so that a peer that stops reading fails new requests at once instead of
 * growing the queue without bound. No lock anywhere: nothing here can be held across the write.
 */
final class OutboundQueue {
  /** Bytes one write carries at most; a longer backlog is written by the same flush in several writes. */
  static final int MAX_BATCH_BYTES = 256 * 1024;

  /** Where the frames go: the connection's I/O thread and its socket. */
  interface Sink {
    /** Runs {@code flush} on the connection's I/O thread, after whatever that thread is doing now. */
    void schedule(Runnable flush);

    /**
     * Writes {@code batch} (one or more whole frames) without blocking; calls {@code written} once, when the bytes
     * are on the socket or the write failed (a failed write closes the connection).
     */
    void write(ByteBuffer batch, Runnable written);
  }

  private final Queue<ByteBuffer> frames = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  /** True while a flush drains; a second flush that starts meanwhile leaves the frames to the first. */
  private final AtomicBoolean draining = new AtomicBoolean();
  private final AtomicLong queuedBytes = new AtomicLong();
  private final LongAdder framesWritten;
  private final LongAdder writes;
  private final Sink sink;
  private final Runnable flush = this::flush;
  private volatile boolean closed;

  /** @param framesWritten counts frames written, and {@code writes} the writes they took (shared per transport) */
  OutboundQueue(Sink sink, LongAdder framesWritten, LongAdder writes) {
    this.sink = sink;
    this.framesWritten = framesWritten;
    this.writes = writes;
  }

  /**
   * Counts {@code size} bytes as queued unless that would pass {@code limit}; true if it did. A caller that reserved
   * must then {@link #enqueueReserved enqueue} the frame or {@link #release} the bytes.
   */
  boolean reserve(int size, long limit) {
    long queued = queuedBytes.addAndGet(size);
    if (queued > limit) {
      queuedBytes.addAndGet(-size);
      return false;
    }
    return true;
  }

  void release(int size) {
    queuedBytes.addAndGet(-size);
  }

  /** Hands over a frame whose bytes are not limited (replies and handshake frames: a peer waits for them). */
  void enqueue(ByteBuffer frame) {
    queuedBytes.addAndGet(frame.remaining());
    enqueueReserved(frame);
  }

  /** Hands over a frame whose bytes were {@link #reserve reserved}; it is written by the next flush. */
  void enqueueReserved(ByteBuffer frame) {
    frames.add(frame);
    if (closed) {
      dropQueued(); // a close that ran before the add did not see this frame
      return;
    }
    if (scheduled.compareAndSet(false, true)) {
      sink.schedule(flush);
    }
  }

  /** I/O thread: writes what is queued, in as few writes as {@link #MAX_BATCH_BYTES} allows. */
  private void flush() {
    scheduled.set(false); // frames added from here on either make it into this drain or schedule the next flush
    if (!draining.compareAndSet(false, true)) {
      return; // only if the sink ran a flush off the I/O thread; the draining one re-checks when it is done
    }
    try {
      drain();
    } finally {
      draining.set(false);
    }
    if (!frames.isEmpty() && !closed && scheduled.compareAndSet(false, true)) {
      sink.schedule(flush);
    }
  }

  private void drain() {
    ByteBuffer first;
    while (!closed && (first = frames.poll()) != null) {
      int size = first.remaining();
      int count = 1;
      for (ByteBuffer frame : frames) { // weakly consistent, but only this thread polls: these stay at the head
        if (size + frame.remaining() > MAX_BATCH_BYTES) {
          break;
        }
        size += frame.remaining();
        count++;
      }
      ByteBuffer batch = first;
      if (count > 1) {
        batch = ByteBuffer.allocate(size);
        batch.put(first);
        for (int i = 1; i < count; i++) {
          batch.put(frames.poll());
        }
        batch.flip();
      }
      framesWritten.add(count);
      writes.increment();
      int written = size;
      sink.write(batch, () -> queuedBytes.addAndGet(-written));
    }
    if (closed) {
      dropQueued();
    }
  }

  /** The connection closed: frames not yet written are dropped (their requests fail with the connection). */
  void close() {
    closed = true;
    dropQueued();
  }

  private void dropQueued() {
    ByteBuffer frame;
    while ((frame = frames.poll()) != null) {
      queuedBytes.addAndGet(-frame.remaining());
    }
  }

  long queuedBytes() {
    return queuedBytes.get();
  }
}
