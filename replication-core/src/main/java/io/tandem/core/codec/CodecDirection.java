package io.tandem.core.codec;

/** Which way a codec was working when it failed; carried by its exceptions so a log line can say so. */
public enum CodecDirection {
  /** {@code encode}: the value stays on this node and is not replicated. */
  SERIALIZING,
  /** {@code decode}: bytes from a peer (or a backup) were refused. */
  DESERIALIZING
}
