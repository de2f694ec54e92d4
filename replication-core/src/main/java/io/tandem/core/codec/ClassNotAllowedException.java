package io.tandem.core.codec;

/** Deserialization met a class outside the allow-list, or on the built-in deny-list. */
public final class ClassNotAllowedException extends CodecException {
  private static final long serialVersionUID = 1L;
  private final String className;

  public ClassNotAllowedException(String className, String why) {
    super("class " + className + " is not allowed to be deserialized: " + why);
    this.className = className;
  }

  public String className() {
    return className;
  }
}
