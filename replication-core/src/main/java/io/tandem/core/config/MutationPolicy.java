package io.tandem.core.config;

/**
 * How Tandem learns that an attribute changed when the application mutates the object in place instead of calling
 * {@code setAttribute} again.
 */
public enum MutationPolicy {
  /**
   * Reading an attribute whose value is not provably immutable (see {@code ImmutableTypes}) marks it changed, so
   * in-place mutations are replicated. The default: it trades some extra bytes for never losing such a change.
   */
  READ_MARKS_DIRTY,
  /** Only {@code setAttribute} and {@code removeAttribute} mark changes. Cheapest; in-place mutations are lost. */
  SET_ONLY
}
