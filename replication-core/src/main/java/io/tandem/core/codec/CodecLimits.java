package io.tandem.core.codec;

/**
 * Bounds a codec enforces so that a hostile or corrupt stream cannot exhaust memory or the stack.
 *
 * @param maxValueBytes largest serialized value, both ways
 * @param maxDepth deepest object nesting accepted on decode
 * @param maxCollectionSize largest collection, map or array length accepted on decode
 */
public record CodecLimits(int maxValueBytes, int maxDepth, int maxCollectionSize) {
  public CodecLimits {
    if (maxValueBytes < 1 || maxDepth < 1 || maxCollectionSize < 1) {
      throw new IllegalArgumentException("codec limits must be positive: " + maxValueBytes + "/" + maxDepth + "/" + maxCollectionSize);
    }
  }

  public static CodecLimits defaults() {
    return new CodecLimits(8 << 20, 200, 1_000_000);
  }
}
