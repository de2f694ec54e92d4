package io.tandem.core.codec;

/** Builds the codec a configuration names. */
public final class AttributeCodecs {
  private AttributeCodecs() {}

  public static AttributeCodec create(CodecKind kind, ClassFilter filter, CodecLimits limits) {
    return switch (kind) {
      case KRYO -> new KryoAttributeCodec(filter, limits);
      case JDK -> new JdkAttributeCodec(filter, limits);
    };
  }
}
