package io.tandem.core.wire;

/** A frame declared a length over the maximum frame size. Its bytes are skipped unread; later frames decode. */
public final class OversizedFrameException extends WireException {
  private static final long serialVersionUID = 1L;

  public OversizedFrameException(long frameSize, int maxFrameSize) {
    super("frame of " + frameSize + " bytes exceeds the maximum frame size of " + maxFrameSize + " bytes", -1);
  }
}
