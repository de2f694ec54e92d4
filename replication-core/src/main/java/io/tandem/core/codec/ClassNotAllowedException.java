package io.tandem.core.codec;

import java.util.Objects;

/**
 * A codec refused a class because of its {@link ClassFilter}: it is not on the allow-list, it is on the built-in
 * deny-list, or it is a class no peer could load (a lambda or a dynamic proxy). The message says whether
 * serializing or deserializing failed, names the refused class and says why; the accessors give the parts, so a
 * caller can log {@code session [id] attribute [name] class [X]: ...} without parsing the message.
 *
 * <p>When serializing, the refused class may sit anywhere in the value's object graph: {@link #className()} is the
 * refused class, not necessarily the class of the value passed to {@code encode}.
 */
public final class ClassNotAllowedException extends CodecException {
  private static final long serialVersionUID = 1L;

  private final String className;
  private final String reason;
  private final CodecDirection direction;

  /**
   * @param className the refused class (for an array, its innermost component type)
   * @param reason why, e.g. {@code "not on the allow-list (tandem allowedClasses)"}
   */
  public ClassNotAllowedException(String className, String reason, CodecDirection direction) {
    super(message(className, reason, direction));
    this.className = Objects.requireNonNull(className, "className");
    this.reason = Objects.requireNonNull(reason, "reason");
    this.direction = Objects.requireNonNull(direction, "direction");
  }

  static ClassNotAllowedException onWrite(String className, String reason) {
    return new ClassNotAllowedException(className, reason, CodecDirection.SERIALIZING);
  }

  static ClassNotAllowedException onRead(String className, String reason) {
    return new ClassNotAllowedException(className, reason, CodecDirection.DESERIALIZING);
  }

  private static String message(String className, String reason, CodecDirection direction) {
    return switch (direction) {
      case SERIALIZING -> "cannot serialize: the value holds a " + className + ", which is " + reason;
      case DESERIALIZING -> "refused to deserialize class " + className + ": it is " + reason;
    };
  }

  /** The refused class's name. */
  public String className() {
    return className;
  }

  /** Why the class was refused, without the class name. */
  public String reason() {
    return reason;
  }

  /** Whether serializing or deserializing failed. */
  public CodecDirection direction() {
    return direction;
  }
}
