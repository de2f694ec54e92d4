package io.tandem.core.replicator;

import io.tandem.core.logging.RateLimitedLog;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.ClassNotAllowedException;
import io.tandem.core.codec.CodecException;
import io.tandem.core.config.MutationPolicy;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.session.ImmutableTypes;
import java.util.Set;

/**
 * The fixed inputs of every flush, built once from the config: scope, mutation policy, codec, and where the
 * findings go.
 */
final class FlushRules {
  final ReplicationScope scope;
  final MutationPolicy mutationPolicy;
  final boolean verifyMutations;
  final ImmutableTypes immutableTypes;
  final AttributeCodec codec;
  /** {@code maxSessionSize}: the largest a session's copy may be as the wire carries it (see {@link CopyBudget}). */
  final long maxSessionSize;
  private final ReplicationListener listener;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;

  FlushRules(
      ReplicationConfig config,
      AttributeCodec codec,
      ReplicationListener listener,
      ReplicationCounters counters,
      RateLimitedLog log) {
    this.scope = config.scope();
    this.mutationPolicy = config.mutationPolicy();
    this.verifyMutations = config.verifyMutations();
    this.immutableTypes = new ImmutableTypes(Set.copyOf(config.immutableClasses()));
    this.codec = codec;
    this.maxSessionSize = config.maxSessionSize();
    this.listener = listener;
    this.counters = counters;
    this.log = log;
  }

  ReplicationCounters counters() {
    return counters;
  }

  void reportUnsetMutation(String sessionId, String attribute) {
    counters.unsetMutationsDetected.increment();
    log.warn(
        "unset-mutation:" + attribute,
        "Session [" + sessionId + "] attribute [" + attribute + "] was changed without setAttribute;"
            + " replicating it now. Call setAttribute after changing a session attribute in place.");
    listener.attributeChangedWithoutSet(sessionId, attribute);
  }

  /**
   * One WARN per attribute name and class per interval (the rest are counted in the message that follows), naming
   * the session, the attribute, the class and the cause; the counter and the listener see every one.
   */
  void reportNotReplicable(String sessionId, String attribute, String className, CodecException cause) {
    counters.attributesNotReplicable.increment();
    String refused = cause instanceof ClassNotAllowedException notAllowed ? notAllowed.className() : className;
    log.warn(
        "not-replicable:" + attribute + ":" + refused,
        "Session [" + sessionId + "] attribute [" + attribute + "] of class [" + className + "] cannot be replicated: "
            + cause.getMessage());
    listener.attributeNotReplicable(sessionId, attribute, cause);
  }

  /**
   * A copy left attributes out to stay within {@code maxSessionSize}: counted, one WARN per session per interval, and
   * the listener hears it (the container says it in the 500 of a request that set one of them).
   */
  void reportSessionTooLarge(SessionTooLarge tooLarge) {
    counters.sessionsTooLarge.increment();
    log.warn("too-large:" + tooLarge.sessionId(), "Session [" + tooLarge.sessionId() + "] is too large to replicate"
        + " whole: " + tooLarge.describe() + ". They stay on this node only until set again; raise maxSessionSize"
        + " (at most maxFrameSize - 1KiB) or keep less in the session.");
    listener.sessionTooLarge(tooLarge);
  }
}
