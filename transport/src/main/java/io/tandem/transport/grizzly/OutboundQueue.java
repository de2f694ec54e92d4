package io.tandem.transport.grizzly;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Group commit for one connection: any thread hands over an encoded frame, and one thread at a time writes
 * everything handed over so far in one write. Who writes depends on the caller: a request thread about to wait for
 * its reply writes itself when no write is under way ({@link #enqueueAndWrite}), so a lone request costs no wake-up
 * of the I/O thread; a sender with more to send right after leaves the write to the connection's I/O thread
 * ({@link #enqueueReserved}), which then writes a whole burst at once. N frames handed over while a write is under
 * way or scheduled cost one more write, not N.
 *
 * <p>Implementation notes: {@code frames} is a lock-free multi-producer queue. Only the thread holding {@code
 * draining} polls it (the I/O thread's flush or a request thread in {@link #enqueueAndWrite}), so frames are
 * written in the order they were handed over; a thread that finds {@code draining} taken leaves its frame to the
 * holder, which looks at the queue again after it lets go and writes what it finds or schedules a flush for it.
 * {@code scheduled} is true from the moment a producer asks for a flush until that flush starts; a producer that
 * finds it true relies on the pending flush to take its frame, which it does because the flush clears the flag
 * before it drains. {@code lastWriteNanos} is written by whichever thread holds {@code draining}; a producer reads
 * it without a lock, and a stale value only makes one frame go a little earlier or later. {@code readsDone} is
 * written only by the connection's read thread ({@link #afterRead}), after the read and before it looks for held
 * frames; a request counts it before it registers and checks it again after its frame is queued, and is held only if
 * no read ended in between: either it sees that read, or that read's look sees its frame (both are volatile, so one
 * of the two happens), and a request is never held behind a reply that was already read. {@code queuedBytes} counts
 * bytes handed over and not yet written (or dropped), so that a peer that stops reading fails new requests at once
 * instead of growing the queue without bound. No lock anywhere: nothing here can be held across the write.
 *
 * <p><b>Held requests (a write linger).</b> On a loaded node the peer is rarely slower than the requests, so nothing
 * queues behind a write and every request costs a write, a wake-up of the peer's I/O thread, an acknowledgement of its
 * own and a wake-up of this node's I/O thread to read it: on a virtual machine where a wake-up costs tens of µs of
 * CPU, more than the request's own work. With a linger, a request frame handed to {@link #enqueueAndWrite} while
 * another request of the connection awaits its reply, less than {@code linger} after the connection's last write,
 * is held: the connection's I/O thread writes it, with every other frame held meanwhile, in one write right after its
 * next read ({@link #flushHeld}), which is usually the one that brings the reply awaited, so the I/O thread is
 * awake already. The peer then reads the held frames in one read and acknowledges them with one frame: the batch
 * grows with the load, as Nagle's algorithm does for TCP segments. A request with nothing awaited before it is
 * written at once, so a lightly loaded node adds no latency; a held one waits about one round trip. Should no read
 * come, the transport's deadline sweep flushes what is held. Replies are never held.
 */
final class OutboundQueue {
  /** Bytes one write carries at most; a longer backlog is written by the same flush in several writes. */
  static final int MAX_BATCH_BYTES = 256 * 1024;
  /** Writes a caller of {@link #enqueueAndWrite} makes at most before it leaves the rest to the I/O thread. */
  static final int MAX_CALLER_WRITES = 4;
  /** Writes one flush of the I/O thread makes at most before it lets the thread read, and flushes again. */
  static final int MAX_FLUSH_WRITES = 16;

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
  private final LongAdder callerWrites;
  private final Sink sink;
  private final Runnable flush = this::flush;
  private final long lingerNanos;
  private final LongSupplier nanoClock;
  /** When the last write started, on {@code nanoClock}; meaningful only with a linger. */
  private volatile long lastWriteNanos;
  /** Reads of the connection that have ended; written only by its read thread. */
  private volatile long readsDone;
  private volatile boolean closed;

  /**
   * @param framesWritten counts frames written, {@code writes} the writes they took, and {@code callerWrites} those
   *     of the writes that a requesting thread made itself (all three shared per transport)
   */
  OutboundQueue(Sink sink, LongAdder framesWritten, LongAdder writes, LongAdder callerWrites) {
    this(sink, framesWritten, writes, callerWrites, Duration.ZERO, System::nanoTime);
  }

  /**
   * @param linger how long after the connection's last write a request may be held (zero: never held)
   * @param nanoClock the clock the linger is measured on
   */
  OutboundQueue(Sink sink, LongAdder framesWritten, LongAdder writes, LongAdder callerWrites, Duration linger,
      LongSupplier nanoClock) {
    if (linger.isNegative()) {
      throw new IllegalArgumentException("linger: " + linger + " must not be negative");
    }
    this.lingerNanos = linger.toNanos();
    this.nanoClock = nanoClock;
    this.lastWriteNanos = nanoClock.getAsLong() - lingerNanos;
    this.sink = sink;
    this.framesWritten = framesWritten;
    this.writes = writes;
    this.callerWrites = callerWrites;
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

  /**
   * Hands over a frame whose bytes were {@link #reserve reserved} and writes it on the calling thread, with whatever
   * else is queued, unless a write is under way or scheduled already: that one takes it along. A caller about to wait
   * for its reply has nothing better to do than write, and the I/O thread is not woken for a lone frame. The caller
   * makes at most {@link #MAX_CALLER_WRITES} writes, for itself and for others that hand frames over meanwhile; a
   * longer stream is left to the I/O thread. With a linger, a frame handed over while {@code othersAwaited} within
   * the linger of the last write is held instead (see the class notes).
   *
   * @param othersAwaited another request of this connection awaited its reply when this one registered
   * @param readsBefore {@link #readsDone()} before this request registered
   */
  void enqueueAndWrite(ByteBuffer frame, boolean othersAwaited, long readsBefore) {
    frames.add(frame);
    if (closed) {
      dropQueued();
      return;
    }
    if (othersAwaited && lingerNanos > 0 && nanoClock.getAsLong() - lastWriteNanos < lingerNanos
        && readsDone == readsBefore) {
      return; // held: the I/O thread writes it after its next read (which sees it: see the notes), or the sweep does
    }
    int budget = MAX_CALLER_WRITES;
    // Stops when a scheduled flush will take the frames, or another thread drains (it looks again once it is done).
    while (budget > 0 && !scheduled.get() && draining.compareAndSet(false, true)) {
      try {
        budget -= drain(budget, callerWrites);
      } finally {
        draining.set(false);
      }
      if (frames.isEmpty() || closed) {
        return;
      }
    }
    if (budget == 0 && scheduled.compareAndSet(false, true)) {
      sink.schedule(flush);
    }
  }

  /** Reads of the connection that have ended so far. */
  long readsDone() {
    return readsDone;
  }

  /**
   * The connection's read thread, at the end of every read: counts it, then has what is held written (the task runs
   * before that thread next waits, so no wake-up). Only that thread calls it.
   */
  void afterRead() {
    readsDone++; // one writer (the connection's read thread), so no lost increment
    flushHeld();
  }

  /** Has the I/O thread write whatever is queued (held requests) unless a flush is scheduled already; the sweep's call. */
  void flushHeld() {
    if (!frames.isEmpty() && !closed && scheduled.compareAndSet(false, true)) {
      sink.schedule(flush);
    }
  }

  /** I/O thread: writes what is queued, in as few writes as {@link #MAX_BATCH_BYTES} allows, at most {@link #MAX_FLUSH_WRITES}. */
  private void flush() {
    scheduled.set(false); // frames added from here on either make it into this drain or schedule the next flush
    if (!draining.compareAndSet(false, true)) {
      return; // another thread drains; it looks at the queue again when it is done
    }
    try {
      drain(MAX_FLUSH_WRITES, null);
    } finally {
      draining.set(false);
    }
    if (!frames.isEmpty() && !closed && scheduled.compareAndSet(false, true)) {
      sink.schedule(flush); // more than one flush writes, or handed over meanwhile: the I/O thread reads in between
    }
  }

  /**
   * Writes queued frames, whole frames of up to {@link #MAX_BATCH_BYTES} per write, until the queue is empty or
   * {@code maxWrites} writes were made; returns the writes made. The caller holds {@code draining}.
   *
   * @param byCaller counts the writes when a requesting thread makes them; null on the I/O thread
   */
  private int drain(int maxWrites, LongAdder byCaller) {
    int made = 0;
    ByteBuffer first;
    while (made < maxWrites && !closed && (first = frames.poll()) != null) {
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
      lastWriteNanos = nanoClock.getAsLong();
      framesWritten.add(count);
      writes.increment();
      if (byCaller != null) {
        byCaller.increment();
      }
      made++;
      int written = size;
      sink.write(batch, () -> queuedBytes.addAndGet(-written));
    }
    if (closed) {
      dropQueued();
    }
    return made;
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
