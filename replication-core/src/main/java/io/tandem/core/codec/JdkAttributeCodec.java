package io.tandem.core.codec;

import io.tandem.core.session.Blob;
import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * JDK serialization, for applications whose attributes rely on custom {@code writeObject}/{@code readObject}
 * logic. Decoding is filtered: classes are checked against the {@link ClassFilter} before they are loaded, and
 * an {@link java.io.ObjectInputFilter} bounds depth, array lengths, references and stream size.
 */
public final class JdkAttributeCodec implements AttributeCodec {
  private final ClassFilter filter;
  private final CodecLimits limits;

  public JdkAttributeCodec(ClassFilter filter, CodecLimits limits) {
    this.filter = Objects.requireNonNull(filter, "filter");
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  @Override
  public String name() {
    return "jdk";
  }

  /**
   * {@inheritDoc}
   *
   * <p>For this codec the value's class must also implement {@link Serializable} (arrays excepted: their elements
   * are judged one by one by {@link #encode}).
   */
  @Override
  public Optional<String> refusalOf(Object value) {
    Class<?> type = value.getClass();
    Optional<String> why = filter.refusalOf(type);
    if (why.isPresent()) {
      return Optional.of("class " + ClassFilter.refusedName(type) + " is " + why.get());
    }
    if (!(value instanceof Serializable) && !type.isArray()) {
      return Optional.of("class " + type.getName() + " does not implement java.io.Serializable (codec jdk)");
    }
    return Optional.empty();
  }

  @Override
  public Blob encode(Object value) {
    Objects.requireNonNull(value, "value");
    return Blob.wrap(JdkSerialization.serialize(value, filter, limits.maxValueBytes()));
  }

  @Override
  public Object decode(Blob bytes, ClassLoader loader) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.size() > limits.maxValueBytes()) {
      throw new ValueTooLargeException(
          "value", bytes.size(), true, limits.maxValueBytes(), CodecDirection.DESERIALIZING);
    }
    ClassLoader effective = loader != null ? loader : JdkAttributeCodec.class.getClassLoader();
    return JdkSerialization.deserialize(bytes.array(), bytes.offset(), bytes.size(), effective, filter, limits);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Read from the stream's header: the class descriptor of the top-level object, array or enum constant.
   */
  @Override
  public Optional<String> className(Blob bytes) {
    Objects.requireNonNull(bytes, "bytes");
    try (java.io.DataInputStream in = new java.io.DataInputStream(
        new java.io.ByteArrayInputStream(bytes.array(), bytes.offset(), bytes.size()))) {
      if (in.readShort() != java.io.ObjectStreamConstants.STREAM_MAGIC
          || in.readShort() != java.io.ObjectStreamConstants.STREAM_VERSION) {
        return Optional.empty();
      }
      byte kind = in.readByte();
      if (kind == java.io.ObjectStreamConstants.TC_STRING || kind == java.io.ObjectStreamConstants.TC_LONGSTRING) {
        return Optional.of("java.lang.String");
      }
      if (kind != java.io.ObjectStreamConstants.TC_OBJECT && kind != java.io.ObjectStreamConstants.TC_ARRAY
          && kind != java.io.ObjectStreamConstants.TC_ENUM) {
        return Optional.empty();
      }
      byte descriptor = in.readByte();
      if (descriptor == java.io.ObjectStreamConstants.TC_PROXYCLASSDESC) {
        return Optional.of("a dynamic proxy");
      }
      return descriptor == java.io.ObjectStreamConstants.TC_CLASSDESC ? Optional.of(in.readUTF()) : Optional.empty();
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public String toString() {
    return "JdkAttributeCodec[" + filter + ", " + limits + "]";
  }
}
