package io.tandem.core.codec;

/** A serialized value is larger than the configured maximum; it was not replicated. */
public final class ValueTooLargeException extends CodecException {
  private static final long serialVersionUID = 1L;

  public ValueTooLargeException(String className, long size, long max) {
    super("serialized " + className + " is " + size + " bytes, over the maximum of " + max + " bytes");
  }
}
