package io.tandem.core.codec;

/** A value could not be serialized or deserialized. The message says which class and why. */
public class CodecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }

  public CodecException(String message) {
    super(message);
  }
}
