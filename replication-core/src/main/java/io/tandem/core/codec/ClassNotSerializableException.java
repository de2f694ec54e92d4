package io.tandem.core.codec;

import java.util.Objects;

/**
 * The JDK codec (or the Kryo codec's JDK fallback for collection wrappers) met an object whose class does not
 * implement {@link java.io.Serializable} while serializing; the value was not replicated.
 */
public final class ClassNotSerializableException extends CodecException {
  private static final long serialVersionUID = 1L;
  private final String className;

  public ClassNotSerializableException(String className) {
    super("cannot serialize: the value holds a " + className + ", which does not implement java.io.Serializable");
    this.className = Objects.requireNonNull(className, "className");
  }

  /** The class that is not serializable. */
  public String className() {
    return className;
  }
}
