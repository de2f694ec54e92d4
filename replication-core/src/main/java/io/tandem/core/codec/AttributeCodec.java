package io.tandem.core.codec;

import io.tandem.core.session.Blob;

/**
 * Turns attribute values (and principals and notes) into bytes and back. Implementations are thread-safe, and
 * every decode goes through the {@link ClassFilter} they were built with: a class outside it is never loaded.
 */
public interface AttributeCodec {

  /** A short name for logs and configuration: {@code kryo} or {@code jdk}. */
  String name();

  /**
   * Serializes a non-null value.
   *
   * @throws ValueTooLargeException when the serialized form exceeds the configured maximum value size
   * @throws CodecException when the value (or something it references) cannot be serialized
   */
  Blob encode(Object value);

  /**
   * Deserializes a value, resolving classes through {@code loader} (the webapp's class loader in Tomcat).
   *
   * @throws ClassNotAllowedException naming the refused class when the bytes name a class outside the filter
   * @throws CodecException when the bytes are not a value this codec wrote
   */
  Object decode(Blob bytes, ClassLoader loader);
}
