package io.tandem.benchmarks.replication;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import java.util.Set;

/**
 * One writer's session: a single attribute of a fixed size that every update replaces, alternating between two
 * values (both Strings, which the default mutation policy can prove immutable) and touching the last-access time,
 * as a request that calls {@code setAttribute} does.
 *
 * <p>Implementation notes: written by its writer thread only; read by that thread inside the engine's flush.
 */
final class WriterSession implements SessionSource {
  static final String ATTRIBUTE = "a";
  private static final Set<String> NAMES = Set.of(ATTRIBUTE);

  private final String[] values;
  private SessionMetadata metadata;
  private int updates;

  WriterSession(int attributeBytes, int writer, long now) {
    this.values = new String[] {value(attributeBytes, 'a', writer), value(attributeBytes, 'b', writer)};
    this.metadata = SessionMetadata.created(now, 1800);
  }

  /** {@code bytes} Latin-1 characters: as many bytes in a compact String and in Kryo's encoding, plus a header. */
  static String value(int bytes, char fill, int writer) {
    StringBuilder text = new StringBuilder(bytes);
    text.append(writer).append(':');
    while (text.length() < bytes) {
      text.append(fill);
    }
    text.setLength(bytes);
    return text.toString();
  }

  /** A request: the attribute gets its other value and the session its new access time. */
  void update(long now) {
    updates++;
    metadata = metadata.withLastAccessedTime(now);
  }

  @Override
  public SessionMetadata metadata() {
    return metadata;
  }

  @Override
  public Set<String> attributeNames() {
    return NAMES;
  }

  @Override
  public Object attribute(String name) {
    return ATTRIBUTE.equals(name) ? values[updates & 1] : null;
  }
}
