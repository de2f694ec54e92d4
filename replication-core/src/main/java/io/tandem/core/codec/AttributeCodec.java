package io.tandem.core.codec;

import io.tandem.core.session.Blob;
import java.util.Optional;

/**
 * Turns attribute values (and principals and notes) into bytes and back. Implementations are thread-safe, and
 * every decode goes through the {@link ClassFilter} they were built with: a class outside it is never loaded.
 *
 * <p>Encode refuses what decode would refuse: whatever {@link #encode} accepts, {@link #decode} on a codec of the
 * same kind, filter and limits accepts, given a class loader that can load the same classes. A value Tandem
 * cannot replicate is therefore refused on the node that holds it, where the application can be told, and never
 * discovered by a peer at failover.
 */
public interface AttributeCodec {

  /** A short name for logs and configuration: {@code kryo} or {@code jdk}. */
  String name();

  /**
   * A fast check of a value's top-level class, meant for {@code setAttribute} time: empty when this codec may be
   * able to encode {@code value}, otherwise a sentence naming the refused class and saying why (for example
   * {@code "class com.example.Cart is not on the allow-list (tandem allowedClasses)"}).
   *
   * <p>Contract: it never refuses a value that {@link #encode} would accept (if it answers, {@code encode} would
   * throw the matching {@link ClassNotAllowedException} or {@link ClassNotSerializableException}). It looks only
   * at the value's own class (for an array, the innermost component type), never into the object graph, so an
   * empty answer does not promise that {@code encode} succeeds: a refused class nested inside the value, or a
   * value over {@code maxValueSize}, is found by {@code encode} when the request ends. Cost: a per-class cached
   * lookup, no serialization, no allocation after the first call for a class.
   *
   * <p>The default never refuses; the built-in codecs override it.
   *
   * @param value a non-null attribute value
   */
  default Optional<String> refusalOf(Object value) {
    return Optional.empty();
  }

  /**
   * Serializes a non-null value. Every class in the value's object graph is checked against the filter as it is
   * written, including classes the format does not name (final field types), and writing stops as soon as the
   * output passes the maximum value size.
   *
   * @throws ClassNotAllowedException naming the refused class when the value holds a class outside the filter
   * @throws ClassNotSerializableException when the codec needs {@link java.io.Serializable} and a class in the
   *     graph does not implement it
   * @throws ValueTooLargeException when the serialized form exceeds the configured maximum value size
   * @throws CodecException when the value (or something it references) cannot be serialized for another reason
   */
  Blob encode(Object value);

  /**
   * Deserializes a value, resolving classes through {@code loader} (the webapp's class loader in Tomcat).
   *
   * @throws ClassNotAllowedException naming the refused class when the bytes name a class outside the filter
   * @throws CodecException when the bytes are not a value this codec wrote
   */
  Object decode(Blob bytes, ClassLoader loader);

  /**
   * The name of the class a value's bytes say they hold (the value's own class, as the node that wrote it named it),
   * read from the bytes alone: no class is loaded or checked, nothing is decoded. For log lines about a value that
   * could not be decoded. Empty when the bytes do not say (they are not a value this codec wrote).
   */
  default Optional<String> className(Blob bytes) {
    return Optional.empty();
  }
}
