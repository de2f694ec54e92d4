package io.tandem.core.codec;

/**
 * A serialized value is larger than the configured maximum ({@code maxValueSize}); it was not replicated (when
 * serializing) or not accepted (when deserializing). Serializing stops as soon as the limit is passed, so the
 * size reported then may be a lower bound; {@link #sizeIsExact()} says which.
 */
public final class ValueTooLargeException extends CodecException {
  private static final long serialVersionUID = 1L;
  private final String className;
  private final long size;
  private final boolean sizeIsExact;
  private final long maxBytes;
  private final CodecDirection direction;

  /**
   * @param className the class of the value (or {@code "value"} when decoding bytes not yet read)
   * @param size the serialized size, or a lower bound of it when {@code sizeIsExact} is false
   */
  public ValueTooLargeException(
      String className, long size, boolean sizeIsExact, long maxBytes, CodecDirection direction) {
    super(message(className, size, sizeIsExact, maxBytes, direction));
    this.className = className;
    this.size = size;
    this.sizeIsExact = sizeIsExact;
    this.maxBytes = maxBytes;
    this.direction = direction;
  }

  private static String message(
      String className, long size, boolean exact, long maxBytes, CodecDirection direction) {
    String bytes = (exact ? "" : "more than ") + size + " bytes, over maxValueSize of " + maxBytes + " bytes";
    return direction == CodecDirection.SERIALIZING
        ? "cannot serialize " + className + ": its serialized form is " + bytes
        : "refused to deserialize " + className + ": it is " + bytes;
  }

  /** The class of the value that was too large. */
  public String className() {
    return className;
  }

  /** The serialized size in bytes, or a lower bound when {@link #sizeIsExact()} is false. */
  public long size() {
    return size;
  }

  /** Whether {@link #size()} is the exact size rather than a lower bound. */
  public boolean sizeIsExact() {
    return sizeIsExact;
  }

  /** The configured maximum, in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /** Whether serializing or deserializing failed. */
  public CodecDirection direction() {
    return direction;
  }
}
