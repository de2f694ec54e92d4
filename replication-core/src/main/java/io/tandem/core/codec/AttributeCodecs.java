package io.tandem.core.codec;

import java.util.Objects;

/** Creates the configured {@link AttributeCodec}, so callers depend on the interface only. */
public final class AttributeCodecs {
  private AttributeCodecs() {}

  /**
   * A new thread-safe codec of {@code kind} that decodes only classes {@code filter} allows; a Kryo codec writes
   * {@link KryoFieldEncoding#COMPATIBLE}.
   */
  public static AttributeCodec create(CodecKind kind, ClassFilter filter, CodecLimits limits) {
    return create(kind, filter, limits, KryoFieldEncoding.COMPATIBLE);
  }

  /** {@link #create(CodecKind, ClassFilter, CodecLimits)}, with the field encoding a Kryo codec writes. */
  public static AttributeCodec create(
      CodecKind kind, ClassFilter filter, CodecLimits limits, KryoFieldEncoding kryoFields) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(kryoFields, "kryoFields");
    return switch (kind) {
      case KRYO -> new KryoAttributeCodec(filter, limits, kryoFields);
      case JDK -> new JdkAttributeCodec(filter, limits);
    };
  }
}
