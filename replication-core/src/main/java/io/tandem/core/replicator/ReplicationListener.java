package io.tandem.core.replicator;

import io.tandem.core.codec.CodecException;

/**
 * What the container adapter hears from the engine. Called on engine or request threads; implementations must
 * be quick and must not call back into the engine while holding their own locks.
 */
public interface ReplicationListener {

  /** Verify mode found that the attribute's bytes changed although nobody called {@code setAttribute}. */
  default void attributeChangedWithoutSet(String sessionId, String attribute) {}

  /** The attribute could not be serialized (too large, not serializable) and is not replicated. */
  default void attributeNotReplicable(String sessionId, String attribute, CodecException cause) {}

  /**
   * The session's full copy would have been larger than {@code maxSessionSize}: the attributes named were left out of
   * it (sent as removed). Called on the thread that built the copy: a request's own when its flush did.
   */
  default void sessionTooLarge(SessionTooLarge finding) {}

  /**
   * Another node owns the session now (its epoch is higher): this node must stop serving it and drop its copy
   * without firing application listeners.
   */
  default void sessionFenced(String sessionId, String reason) {}

  ReplicationListener NONE = new ReplicationListener() {};
}
