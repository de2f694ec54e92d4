package io.tandem.core.wire;

/** The stream ended in the middle of a frame. */
public final class TruncatedFrameException extends WireException {
  private static final long serialVersionUID = 1L;

  public TruncatedFrameException(long have, long need) {
    super("stream ended " + (need - have) + " bytes short of the end of a frame (" + have + " of " + need + ")", -1);
  }
}
