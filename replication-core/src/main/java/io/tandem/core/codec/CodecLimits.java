package io.tandem.core.codec;

/**
 * Bounds every codec enforces, so that a hostile or corrupt peer cannot exhaust memory or stack while a value is
 * decoded, and a runaway attribute cannot flood the replication channel while it is encoded.
 *
 * @param maxValueBytes largest serialized value, in bytes, accepted on encode and decode
 * @param maxDepth deepest object nesting accepted (guards against stack exhaustion)
 * @param maxCollectionSize largest element count a collection, map or array may declare
 */
public record CodecLimits(int maxValueBytes, int maxDepth, int maxCollectionSize) {

  /** 8 MiB values, nesting 200 deep, a million elements per collection. */
  private static final CodecLimits DEFAULTS = new CodecLimits(8 * 1024 * 1024, 200, 1_000_000);

  public CodecLimits {
    if (maxValueBytes < 16) {
      throw new IllegalArgumentException("maxValueBytes must be >= 16, was " + maxValueBytes);
    }
    if (maxDepth < 1) {
      throw new IllegalArgumentException("maxDepth must be >= 1, was " + maxDepth);
    }
    if (maxCollectionSize < 0) {
      throw new IllegalArgumentException("maxCollectionSize must be >= 0, was " + maxCollectionSize);
    }
  }

  /** Limits suited to HTTP session attributes: 8 MiB, depth 200, 1,000,000 elements. */
  public static CodecLimits defaults() {
    return DEFAULTS;
  }
}
