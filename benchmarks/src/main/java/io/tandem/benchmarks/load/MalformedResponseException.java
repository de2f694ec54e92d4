package io.tandem.benchmarks.load;

/**
 * The bytes a server sent are not an HTTP/1.x response the driver can frame. Carries where parsing stopped, so a
 * report names the part of the response at fault rather than just "bad response".
 */
final class MalformedResponseException extends Exception {

  private final String part;
  private final long offset;

  MalformedResponseException(String part, long offset, String problem) {
    super("Malformed response in the " + part + " at byte " + offset + ": " + problem);
    this.part = part;
    this.offset = offset;
  }

  /** The part being parsed: status line, headers, chunk size, body... */
  String part() {
    return part;
  }

  /** Bytes of this response consumed before the fault. */
  long offset() {
    return offset;
  }
}
