package io.tandem.transport.grizzly;

import java.util.concurrent.atomic.LongAdder;

/** The transport's event counts, incremented on any thread; read for {@link TransportStats}. */
final class TransportCounters {
  final LongAdder accepted = new LongAdder();
  final LongAdder dialed = new LongAdder();
  final LongAdder backPressure = new LongAdder();
  final LongAdder sent = new LongAdder();
  final LongAdder timedOut = new LongAdder();
  final LongAdder served = new LongAdder();
  final LongAdder rangeAcks = new LongAdder();
  final LongAdder acksForNothingSent = new LongAdder();
  final LongAdder framesWritten = new LongAdder();
  final LongAdder writes = new LongAdder();
  final LongAdder callerWrites = new LongAdder();
  /** Peers whose connection closed and whose host then refused a new one (fast death detection). */
  final LongAdder refusedRedials = new LongAdder();

  TransportStats stats(Refusals refusals, int unauthenticatedConnections, int refusedMembers) {
    return new TransportStats(accepted.sum(), dialed.sum(), refusals.failedAuthentications(),
        refusals.count(RefusalCause.REFUSED_FRAME), refusals.count(RefusalCause.CORRUPT_FRAMING), backPressure.sum(),
        sent.sum(), timedOut.sum(), served.sum(), refusals.snapshot(), unauthenticatedConnections, refusedMembers,
        framesWritten.sum(), writes.sum(), callerWrites.sum(), rangeAcks.sum(), acksForNothingSent.sum());
  }
}
