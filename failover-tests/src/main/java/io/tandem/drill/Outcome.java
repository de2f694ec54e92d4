package io.tandem.drill;

/** What the client learned of one request, Jepsen-style. */
enum Outcome {
  /** The node answered that the write happened: it must never be lost (in SYNC mode). */
  OK,
  /** The node answered that it did not happen, or could not be reached before sending anything. */
  FAILED,
  /** The connection broke after the request was sent: the write may or may not have happened. */
  UNKNOWN
}
