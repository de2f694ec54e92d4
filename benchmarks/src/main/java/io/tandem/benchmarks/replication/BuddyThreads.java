package io.tandem.benchmarks.replication;

import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real transport, noting which threads ran its request handler ({@link FlushAllocation} counts them as the
 * buddy's). Allocates nothing per request once a thread is known.
 *
 * <p>Implementation notes: {@code HANDLER_THREADS} is a concurrent map written by the handler's threads and read by
 * the report; one JVM holds one buddy.
 */
final class BuddyThreads extends ForwardingTransport {
  static final ConcurrentHashMap<Long, Boolean> HANDLER_THREADS = new ConcurrentHashMap<>();

  BuddyThreads(Transport delegate) {
    super(delegate);
  }

  @Override
  public void start(RequestHandler handler) throws Exception {
    delegate.start((from, request) -> {
      long thread = Thread.currentThread().getId();
      if (!HANDLER_THREADS.containsKey(thread)) {
        HANDLER_THREADS.put(thread, Boolean.TRUE);
      }
      return handler.handle(from, request);
    });
  }
}
