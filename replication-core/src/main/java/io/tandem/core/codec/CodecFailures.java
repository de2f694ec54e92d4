package io.tandem.core.codec;

/** Helpers to turn library exceptions into the codec's own, without losing a nested refusal. */
final class CodecFailures {
  private CodecFailures() {}

  /** The first throwable of {@code type} in the cause chain of {@code t}, or null. */
  static <T extends Throwable> T find(Throwable t, Class<T> type) {
    int guard = 0;
    for (Throwable c = t; c != null && guard < 64; c = c.getCause(), guard++) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  /** The message of the innermost cause, which is usually the one that says what went wrong. */
  static String rootMessage(Throwable t) {
    Throwable root = t;
    int guard = 0;
    while (root.getCause() != null && root.getCause() != root && guard++ < 64) {
      root = root.getCause();
    }
    String msg = root.getMessage();
    if (msg != null) {
      int trace = msg.indexOf("\nSerialization trace:");
      if (trace >= 0) {
        msg = msg.substring(0, trace);
      }
    }
    return root.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
  }
}
