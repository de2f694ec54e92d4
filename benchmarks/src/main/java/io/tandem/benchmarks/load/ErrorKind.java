package io.tandem.benchmarks.load;

/** Why a request failed. Each failed request counts once, under the first failure it met. */
public enum ErrorKind {
  /** The connection could not be opened: refused, unreachable, or no local port or file descriptor left. */
  CONNECT,
  /** No complete response within the request timeout, counted from the intended send time. */
  TIMEOUT,
  /** A complete response with a status outside 2xx. */
  STATUS,
  /** Bytes that are not an HTTP/1.x response, or more bytes than the response framed. */
  MALFORMED,
  /** The server closed or reset the connection before the response was complete. */
  CLOSED
}
