package io.tandem.core.session;

import java.util.Set;

/**
 * The container's live session as the engine sees it. Implemented by the container adapter (the Tomcat session),
 * read by the engine only while it holds the session's replication lock, during a flush.
 */
public interface SessionSource {

  /** Current metadata; the adapter serializes principal and notes with the session's codec. */
  SessionMetadata metadata();

  Set<String> attributeNames();

  /**
   * The live value, or null when there is no such attribute; an {@link EncodedValue} when the container has not
   * decoded it since it took the session over (the engine then replicates those bytes as they are).
   */
  Object attribute(String name);
}
