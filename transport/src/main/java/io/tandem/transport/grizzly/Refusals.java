package io.tandem.transport.grizzly;

import io.tandem.core.logging.RateLimitedLog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every refusal by cause and writes a WARN that cannot flood the log: keyed by cause and source IP (never
 * the port, which a flood varies), rate-limited, with a bounded key map and a global line budget (see {@link
 * RateLimitedLog}). The counters are the complete record; the log only samples it.
 *
 * <p>Implementation notes: lock-free counters; the log has its own lock. Called from selector threads and the
 * timer thread.
 */
final class Refusals {
  private final Map<RefusalCause, LongAdder> counts = new EnumMap<>(RefusalCause.class);
  private final RateLimitedLog log;

  Refusals(RateLimitedLog log) {
    this.log = log;
    for (RefusalCause cause : RefusalCause.values()) {
      counts.put(cause, new LongAdder());
    }
  }

  void refuse(RefusalCause cause, Object remoteAddress, String message) {
    counts.get(cause).increment();
    log.warn(cause + ":" + ip(remoteAddress), message);
  }

  long count(RefusalCause cause) {
    return counts.get(cause).sum();
  }

  Map<RefusalCause, Long> snapshot() {
    Map<RefusalCause, Long> out = new EnumMap<>(RefusalCause.class);
    counts.forEach((cause, n) -> out.put(cause, n.sum()));
    return out;
  }

  long failedAuthentications() {
    long sum = 0;
    for (RefusalCause cause : RefusalCause.values()) {
      if (cause.failedAuthentication()) {
        sum += counts.get(cause).sum();
      }
    }
    return sum;
  }

  static String ip(Object remoteAddress) {
    if (remoteAddress instanceof InetSocketAddress socket) {
      InetAddress address = socket.getAddress();
      return address == null ? socket.getHostString() : address.getHostAddress();
    }
    return String.valueOf(remoteAddress);
  }
}
