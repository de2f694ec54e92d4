package io.tandem.core.session;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Attribute names set or removed on one session since its last flush, by any thread. Parallel requests on one
 * session share it, so whichever flushes first carries both requests' changes: nothing is lost and no update is
 * rejected as stale, because versions count flushes, not requests.
 *
 * <p>Implementation notes: guarded by the owning {@code OwnedSession}'s lock; not thread-safe on its own.
 */
public final class PendingChanges {
  private final Set<String> changed = new LinkedHashSet<>();
  private boolean accessed;
  private boolean metadataChanged;

  /** {@code setAttribute} or {@code removeAttribute}: which one does not matter, the flush reads the current value. */
  public void attributeChanged(String name) {
    changed.add(name);
  }

  public void accessed() {
    accessed = true;
  }

  /** Max inactive interval, principal, auth type or a note changed. */
  public void metadataChanged() {
    metadataChanged = true;
  }

  public boolean isAccessed() {
    return accessed;
  }

  public boolean isMetadataChanged() {
    return metadataChanged;
  }

  public Set<String> changedNames() {
    return changed;
  }

  public boolean hasChanges() {
    return !changed.isEmpty() || metadataChanged;
  }

  public void clear() {
    changed.clear();
    accessed = false;
    metadataChanged = false;
  }
}
