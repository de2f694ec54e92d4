package io.tandem.core.session;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The whole replicated state of one session at one version: what a full message carries, what a backup holds and
 * what a promotion starts from. Attribute values are serialized.
 *
 * <p>The attribute map is immutable. The constructor copies the map it is given, unless it already is one a
 * snapshot can keep as it is (an immutable {@code Map.copyOf}/{@code Map.of} map, or the map of another snapshot);
 * {@link #owning} takes over a map its caller has just built, without the copy.
 *
 * @param epoch the ownership epoch: grows each time the session changes owner, so a former owner's late writes
 *     are recognised as stale
 * @param version grows with every replicated change within and across epochs
 */
public record SessionSnapshot(
    String id, long epoch, long version, SessionMetadata metadata, Map<String, Blob> attributes) {

  public SessionSnapshot {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(metadata, "metadata");
    Objects.requireNonNull(attributes, "attributes");
    if (!(attributes instanceof Owned)) {
      attributes = Map.copyOf(attributes); // returns an immutable map itself, without copying
    }
    if (epoch < 0 || version < 0) {
      throw new IllegalArgumentException("epoch and version must be >= 0: " + epoch + "/" + version);
    }
  }

  /**
   * A snapshot that keeps {@code attributes} instead of copying it: the caller hands the map over and must never
   * modify it (nor let anyone else) afterwards. For maps built only to make this snapshot, such as a decoder's.
   *
   * @param attributes holds no null name or value
   */
  public static SessionSnapshot owning(
      String id, long epoch, long version, SessionMetadata metadata, Map<String, Blob> attributes) {
    return new SessionSnapshot(id, epoch, version, metadata, new Owned(attributes));
  }

  /** This snapshot with another last-access time (the attributes' map is shared: it is immutable). */
  public SessionSnapshot withLastAccessedTime(long time) {
    return new SessionSnapshot(id, epoch, version, metadata.withLastAccessedTime(time), attributes);
  }

  /** Serialized bytes held: attribute names and values plus metadata. */
  public long serializedSize() {
    long size = id.length() + metadata.serializedSize();
    for (Map.Entry<String, Blob> attribute : attributes.entrySet()) {
      size += entrySize(attribute.getKey(), attribute.getValue());
    }
    return size;
  }

  /** What one attribute adds to {@link #serializedSize()}. */
  public static long entrySize(String name, Blob value) {
    return name.length() + value.size();
  }

  /**
   * A read-only view of a map nobody else writes any more. Only {@link #owning} creates one, so the constructor can
   * trust it without copying; it cannot be created (or its map reached) from outside.
   */
  private static final class Owned extends AbstractMap<String, Blob> {
    private final Map<String, Blob> map;

    Owned(Map<String, Blob> map) {
      this.map = Collections.unmodifiableMap(Objects.requireNonNull(map, "attributes"));
    }

    @Override
    public Set<Entry<String, Blob>> entrySet() {
      return map.entrySet();
    }

    @Override
    public int size() {
      return map.size();
    }

    @Override
    public boolean containsKey(Object key) {
      return map.containsKey(key);
    }

    @Override
    public Blob get(Object key) {
      return map.get(key);
    }

    @Override
    public Set<String> keySet() {
      return map.keySet();
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super Blob> action) {
      map.forEach(action);
    }
  }
}
