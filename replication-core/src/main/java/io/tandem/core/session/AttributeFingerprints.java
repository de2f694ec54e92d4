package io.tandem.core.session;

import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * For verify mode: a 64-bit fingerprint of each attribute's bytes as last replicated, so a flush can tell that a
 * value nobody set has changed. Two independent 32-bit hashes make an accidental match negligible.
 *
 * <p>Implementation notes: guarded by the owning {@code OwnedSession}'s lock.
 */
public final class AttributeFingerprints {
  private final Map<String, Long> byName = new HashMap<>();

  public static long fingerprint(Blob blob) {
    CRC32C crc = new CRC32C();
    crc.update(blob.array(), blob.offset(), blob.size());
    return (crc.getValue() << 32) ^ (blob.hashCode() & 0xffffffffL); // Blob.hashCode is Arrays.hashCode
  }

  public void record(String name, Blob blob) {
    byName.put(name, fingerprint(blob));
  }

  public void forget(String name) {
    byName.remove(name);
  }

  public boolean hasRecord(String name) {
    return byName.containsKey(name);
  }

  /** Whether {@code blob} differs from what was last recorded for {@code name}; unknown names count as changed. */
  public boolean differs(String name, Blob blob) {
    Long previous = byName.get(name);
    return previous == null || previous != fingerprint(blob);
  }

  public void clear() {
    byName.clear();
  }
}
