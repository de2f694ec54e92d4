package io.tandem.tomcat;

import java.util.HashSet;
import java.util.Set;

/**
 * The attribute names the current request read, so the mutation policy can count a read of a mutable value as a
 * change. Tracked per request thread: a parallel request on the same session keeps its own reads.
 */
final class RequestReads {
  private static final ThreadLocal<Set<String>> CURRENT = new ThreadLocal<>();

  private RequestReads() {}

  static void begin() {
    CURRENT.set(new HashSet<>());
  }

  static void record(String name) {
    Set<String> reads = CURRENT.get();
    if (reads != null) {
      reads.add(name);
    }
  }

  /** Ends tracking on this thread and returns what was read. */
  static Set<String> end() {
    Set<String> reads = CURRENT.get();
    CURRENT.remove();
    return reads == null ? Set.of() : reads;
  }
}
