package io.tandem.core.session;

import java.util.Map;
import java.util.Objects;

/**
 * The whole replicated state of one session at one version: what a full message carries, what a backup holds and
 * what a promotion starts from. Attribute values are serialized.
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
    attributes = Map.copyOf(Objects.requireNonNull(attributes, "attributes"));
    if (epoch < 0 || version < 0) {
      throw new IllegalArgumentException("epoch and version must be >= 0: " + epoch + "/" + version);
    }
  }

  /** Serialized bytes held: attribute names and values plus metadata. */
  public long serializedSize() {
    long size = id.length() + metadata.serializedSize();
    for (Map.Entry<String, Blob> attribute : attributes.entrySet()) {
      size += attribute.getKey().length() + attribute.getValue().size();
    }
    return size;
  }
}
