package io.tandem.core.codec;

import java.util.Objects;

/** Creates the configured {@link AttributeCodec}, so callers depend on the interface only. */
public final class AttributeCodecs {
  private AttributeCodecs() {}

  /** A new thread-safe codec of {@code kind} that decodes only classes {@code filter} allows. */
  public static AttributeCodec create(CodecKind kind, ClassFilter filter, CodecLimits limits) {
    Objects.requireNonNull(kind, "kind");
    return switch (kind) {
      case KRYO -> new KryoAttributeCodec(filter, limits);
      case JDK -> new JdkAttributeCodec(filter, limits);
    };
  }
}
