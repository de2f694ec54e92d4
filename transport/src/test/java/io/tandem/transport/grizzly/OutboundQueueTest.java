package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** Group commit with a sink the test drives: when the I/O thread runs, and what each write carries. */
class OutboundQueueTest {
  private final List<Runnable> scheduled = new ArrayList<>();
  private final List<ByteBuffer> writes = new ArrayList<>();
  private final List<Runnable> completions = new ArrayList<>();
  private final LongAdder framesWritten = new LongAdder();
  private final LongAdder writeCount = new LongAdder();
  private final LongAdder callerWrites = new LongAdder();
  /** A sink whose I/O thread the test drives; subclasses say what a write does. */
  private abstract class TestSink implements OutboundQueue.Sink {
    @Override
    public void schedule(Runnable flush) {
      scheduled.add(flush);
    }
  }

  private final class RecordingSink extends TestSink {
    @Override
    public void write(ByteBuffer batch, Runnable written) {
      writes.add(batch);
      completions.add(written);
    }
  }

  private final OutboundQueue queue = new OutboundQueue(new RecordingSink(), framesWritten, writeCount, callerWrites);

  private static ByteBuffer frame(int size, int fill) {
    ByteBuffer b = ByteBuffer.allocate(size);
    while (b.hasRemaining()) {
      b.put((byte) fill);
    }
    return b.flip();
  }

  /** As a request does: reserves the frame's bytes, then writes it if no write is under way. */
  private static void handOver(OutboundQueue queue, ByteBuffer frame) {
    assertThat(queue.reserve(frame.remaining(), Long.MAX_VALUE)).isTrue();
    queue.enqueueAndWrite(frame, false, queue.readsDone());
  }

  private void runScheduled() {
    List<Runnable> now = List.copyOf(scheduled);
    scheduled.clear();
    now.forEach(Runnable::run);
  }

  @Test
  void framesHandedOverBeforeTheFlushRuns_leaveInOneWrite_inOrder() {
    queue.enqueue(frame(3, 1));
    queue.enqueue(frame(2, 2));
    queue.enqueue(frame(4, 3));

    assertThat(scheduled).as("one wake-up of the I/O thread for the three").hasSize(1);
    runScheduled();

    assertThat(writes).hasSize(1);
    byte[] bytes = new byte[writes.get(0).remaining()];
    writes.get(0).get(bytes);
    assertThat(bytes).containsExactly(1, 1, 1, 2, 2, 3, 3, 3, 3);
    assertThat(framesWritten.sum()).isEqualTo(3);
    assertThat(writeCount.sum()).isEqualTo(1);
    assertThat(queue.queuedBytes()).as("counted until the socket took them").isEqualTo(9);
    completions.forEach(Runnable::run);
    assertThat(queue.queuedBytes()).isZero();
  }

  @Test
  void aFrameHandedOverAfterTheFlushStarted_schedulesTheNextFlush() {
    queue.enqueue(frame(1, 1));
    runScheduled();
    queue.enqueue(frame(1, 2));

    assertThat(scheduled).hasSize(1);
    runScheduled();
    assertThat(writes).hasSize(2);
  }

  @Test
  void aBacklogLargerThanOneBatch_isWrittenInSeveralWritesByOneFlush() {
    int big = OutboundQueue.MAX_BATCH_BYTES / 2 + 1;
    queue.enqueue(frame(big, 1));
    queue.enqueue(frame(big, 2));
    queue.enqueue(frame(10, 3));

    runScheduled();

    assertThat(writes).extracting(ByteBuffer::remaining).containsExactly(big, big + 10);
    assertThat(scheduled).isEmpty();
  }

  @Test
  void enqueueAndWrite_onAnIdleConnection_writesOnTheCallersThread_withoutWakingTheIoThread() {
    handOver(queue, frame(3, 1));

    assertThat(writes).as("written by the caller at once").hasSize(1);
    assertThat(scheduled).as("no flush, so no wake-up of the I/O thread").isEmpty();
    assertThat(callerWrites.sum()).isEqualTo(1);
  }

  @Test
  void enqueueAndWrite_whileAFlushIsScheduled_leavesTheFrameToIt() {
    queue.enqueue(frame(1, 1));
    handOver(queue, frame(1, 2));

    assertThat(writes).isEmpty();
    runScheduled();
    assertThat(writes).hasSize(1);
    assertThat(writes.get(0).remaining()).isEqualTo(2);
  }

  @Test
  void framesHandedOverDuringACallersWrite_areWrittenByThatCaller_inItsNextWrite_inOrder() {
    List<ByteBuffer> written = new ArrayList<>();
    int[] arrivals = {0};
    OutboundQueue[] self = new OutboundQueue[1];
    self[0] = new OutboundQueue(new TestSink() {
      @Override
      public void write(ByteBuffer batch, Runnable done) {
        written.add(batch);
        if (arrivals[0]++ == 0) { // two more requests hand their frames over while this write is under way
          handOver(self[0], frame(1, 2));
          handOver(self[0], frame(1, 3));
        }
        done.run();
      }
    }, framesWritten, writeCount, callerWrites);

    handOver(self[0], frame(1, 1));

    assertThat(written).extracting(ByteBuffer::remaining).as("the first alone, the two that came meanwhile together")
        .containsExactly(1, 2);
    byte[] second = new byte[2];
    written.get(1).get(second);
    assertThat(second).containsExactly(2, 3);
    assertThat(scheduled).isEmpty();
    assertThat(self[0].queuedBytes()).isZero();
  }

  @Test
  void aCallerThatKeepsFindingNewFrames_leavesTheRestToTheIoThreadAfterItsWrites() {
    List<ByteBuffer> written = new ArrayList<>();
    OutboundQueue[] self = new OutboundQueue[1];
    self[0] = new OutboundQueue(new TestSink() {
      @Override
      public void write(ByteBuffer batch, Runnable done) {
        written.add(batch);
        handOver(self[0], frame(1, written.size())); // a new frame arrives during every write
        done.run();
      }
    }, framesWritten, writeCount, callerWrites);

    handOver(self[0], frame(1, 0));

    assertThat(written).hasSize(OutboundQueue.MAX_CALLER_WRITES);
    assertThat(scheduled).as("the I/O thread takes over the stream").hasSize(1);
  }

  @Test
  void reserve_refusesPastTheLimit_andReleaseGivesBytesBack() {
    assertThat(queue.reserve(60, 100)).isTrue();
    assertThat(queue.reserve(50, 100)).as("110 > 100").isFalse();
    assertThat(queue.queuedBytes()).isEqualTo(60);
    queue.release(60);
    assertThat(queue.queuedBytes()).isZero();
  }

  @Test
  void close_dropsWhatWasNotWritten_andCountsItsBytesOff() {
    queue.enqueue(frame(5, 1));
    queue.close();
    runScheduled();
    queue.enqueue(frame(7, 2));

    assertThat(writes).isEmpty();
    assertThat(queue.queuedBytes()).isZero();
  }

  // ---- held requests (write linger) --------------------------------------------------------------------------------

  private static final Duration LINGER = Duration.ofMillis(1);
  private final long[] clock = {1_000_000_000L};
  private final OutboundQueue holding =
      new OutboundQueue(new RecordingSink(), framesWritten, writeCount, callerWrites, LINGER, () -> clock[0]);

  private static byte[] bytes(ByteBuffer batch) {
    byte[] bytes = new byte[batch.remaining()];
    batch.duplicate().get(bytes);
    return bytes;
  }

  /** As a request does: reserves the frame's bytes, then writes it unless it is held. */
  private static void request(OutboundQueue queue, ByteBuffer frame, boolean othersAwaited) {
    request(queue, frame, othersAwaited, queue.readsDone());
  }

  private static void request(OutboundQueue queue, ByteBuffer frame, boolean othersAwaited, long readsBefore) {
    assertThat(queue.reserve(frame.remaining(), Long.MAX_VALUE)).isTrue();
    queue.enqueueAndWrite(frame, othersAwaited, readsBefore);
  }

  @Test
  void withALinger_aRequestWithNothingAwaitedBeforeIt_isWrittenAtOnceByItsCaller() {
    request(holding, frame(1, 1), false);
    clock[0] += 1_000;
    request(holding, frame(1, 2), false);

    assertThat(writes).as("no added latency when no reply is awaited").hasSize(2);
    assertThat(callerWrites.sum()).isEqualTo(2);
    assertThat(scheduled).isEmpty();
  }

  @Test
  void withALinger_requestsHandedOverWhileARepliesAwaited_areHeld_andTheNextReadWritesThemInOneWrite_inOrder() {
    request(holding, frame(1, 1), false);
    clock[0] += 100_000; // 0.1 ms later, the first one's reply not yet read

    request(holding, frame(1, 2), true);
    request(holding, frame(1, 3), true);

    assertThat(writes).as("held, not written").hasSize(1);
    assertThat(scheduled).as("no wake-up of the I/O thread, no timer").isEmpty();
    holding.afterRead(); // the I/O thread, at the end of the read that brought the reply
    assertThat(scheduled).hasSize(1);
    runScheduled();
    assertThat(writes).hasSize(2);
    assertThat(bytes(writes.get(1))).containsExactly(2, 3);
    assertThat(framesWritten.sum()).isEqualTo(3);
    assertThat(callerWrites.sum()).as("the batch is the I/O thread's write").isEqualTo(1);
  }

  @Test
  void withALinger_aRequestHandedOverLaterThanTheLingerAfterTheLastWrite_isWrittenAtOnce_withWhatWasHeld() {
    request(holding, frame(1, 1), false);
    request(holding, frame(1, 2), true); // held
    clock[0] += LINGER.toNanos(); // the reply awaited is slow: stop waiting for it

    request(holding, frame(1, 3), true);

    assertThat(writes).hasSize(2);
    assertThat(bytes(writes.get(1))).containsExactly(2, 3);
  }

  @Test
  void withoutALinger_aRequestIsNeverHeld() {
    request(queue, frame(1, 1), false);
    request(queue, frame(1, 2), true);

    assertThat(writes).hasSize(2);
  }

  @Test
  void withALinger_aReplyHandedOverWhileRequestsAreHeld_isNotHeld_andTakesThemAlong() {
    request(holding, frame(1, 1), false);
    request(holding, frame(1, 2), true); // held

    holding.enqueue(frame(1, 9)); // a reply: the I/O thread writes it next, with the held request
    runScheduled();

    assertThat(writes).hasSize(2);
    assertThat(bytes(writes.get(1))).containsExactly(2, 9);
    holding.flushHeld();
    assertThat(scheduled).as("nothing held any more").isEmpty();
  }

  /**
   * The race a held request must not lose: the read that brought the reply it would wait for ended after it
   * registered but before its frame was queued, so that read's look found nothing to write.
   */
  @Test
  void withALinger_aRequestWhoseAwaitedReplyWasReadBeforeItsFrameWasQueued_isWrittenAtOnce_notHeld() {
    request(holding, frame(1, 1), false);
    long readsBefore = holding.readsDone(); // the second request registers: the first still awaits its reply
    holding.afterRead(); // the first one's reply is read; nothing is queued yet

    request(holding, frame(1, 2), true, readsBefore);

    assertThat(writes).as("no read is left to release it: written by its caller").hasSize(2);
    assertThat(scheduled).isEmpty();
  }

  @Test
  void flushHeld_withNothingQueued_schedulesNothing() {
    holding.flushHeld();

    assertThat(scheduled).isEmpty();
  }

  @Test
  void withALinger_close_dropsTheHeldRequests_andCountsTheirBytesOff() {
    request(holding, frame(1, 1), false);
    request(holding, frame(4, 2), true);
    completions.forEach(Runnable::run);

    holding.close();
    holding.flushHeld();
    runScheduled();

    assertThat(writes).hasSize(1);
    assertThat(holding.queuedBytes()).isZero();
  }

  @Test
  void aNegativeLinger_isRefused() {
    assertThatThrownBy(() -> new OutboundQueue(new RecordingSink(), framesWritten, writeCount, callerWrites,
        Duration.ofMillis(-1), System::nanoTime)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("linger");
  }
}
