package io.tandem.benchmarks.capacity;

import java.util.Locale;
import java.util.Map;

/**
 * How much Tandem's transport batched over a window, from the nodes' JMX figures ({@code RequestsSent},
 * {@code AcksReceived}, {@code FramesWritten}, {@code SocketWrites}, {@code CallerWrites}): -1 where unknown (not a
 * Tandem setup, or a figure missing).
 */
record TransportBatching(long requestsSent, long acksReceived, long framesWritten, long socketWrites, long callerWrites) {

  static final TransportBatching UNKNOWN = new TransportBatching(-1, -1, -1, -1, -1);

  /** From a node's {@code stats.jsp} figures, by name. */
  static TransportBatching of(Map<String, String> figures) {
    return new TransportBatching(counter(figures, "tandem.RequestsSent"), counter(figures, "tandem.AcksReceived"),
        counter(figures, "tandem.FramesWritten"), counter(figures, "tandem.SocketWrites"),
        counter(figures, "tandem.CallerWrites"));
  }

  private static long counter(Map<String, String> figures, String name) {
    String value = figures.get(name);
    return value == null ? -1 : Long.parseLong(value);
  }

  boolean known() {
    return requestsSent >= 0 && acksReceived >= 0 && framesWritten >= 0 && socketWrites >= 0 && callerWrites >= 0;
  }

  TransportBatching since(TransportBatching earlier) {
    return new TransportBatching(delta(requestsSent, earlier.requestsSent), delta(acksReceived, earlier.acksReceived),
        delta(framesWritten, earlier.framesWritten), delta(socketWrites, earlier.socketWrites),
        delta(callerWrites, earlier.callerWrites));
  }

  TransportBatching plus(TransportBatching other) {
    return new TransportBatching(sum(requestsSent, other.requestsSent), sum(acksReceived, other.acksReceived),
        sum(framesWritten, other.framesWritten), sum(socketWrites, other.socketWrites), sum(callerWrites, other.callerWrites));
  }

  /** Requests per acknowledgement frame received; -1 when unknown or nothing was acknowledged. */
  double requestsPerAck() {
    return known() && acksReceived > 0 ? (double) requestsSent / acksReceived : -1;
  }

  /** Frames per socket write (the group commit's batch size); -1 when unknown or nothing was written. */
  double framesPerWrite() {
    return known() && socketWrites > 0 ? (double) framesWritten / socketWrites : -1;
  }

  /** Socket writes per request sent: 1 or more means no write was shared. */
  double writesPerRequest() {
    return known() && requestsSent > 0 ? (double) socketWrites / requestsSent : -1;
  }

  /** {@code 2.41 requests per ack, 1.62 frames per write, 0.88 writes per request, 43 % by the requesting thread}. */
  String describe() {
    if (!known() || requestsSent == 0) {
      return "not measured";
    }
    return String.format(Locale.ROOT, "%.2f requests per ack, %.2f frames per write, %.2f writes per request, %.0f %% of "
        + "writes by the requesting thread", requestsPerAck(), framesPerWrite(), writesPerRequest(),
        socketWrites > 0 ? 100.0 * callerWrites / socketWrites : 0);
  }

  private static long delta(long now, long before) {
    return now < 0 || before < 0 ? -1 : now - before;
  }

  private static long sum(long a, long b) {
    return a < 0 || b < 0 ? -1 : a + b;
  }
}
