package io.tandem.core.replicator;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.wire.MessageCodec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps the copy of one owned session (what its buddy holds once it has applied every update the owner built) within
 * {@code maxSessionSize}, in bytes as the wire carries it ({@link MessageCodec#snapshotBytes}), so that the copy can
 * always be sent again in full, in one frame, after a buddy change. Without it a session grown by deltas past the
 * frame could never be re-protected: every later write was a 503 and its state-transfer batch failed on every tick.
 *
 * <p>The rule: when an update would make the copy larger than the limit, attributes are left out of it until it fits:
 * first those the update carries as changed, largest first, then, only if that is not enough (the metadata grew, or
 * the copy was adopted from a node with a larger limit), the others, largest first. An attribute left out is absent
 * from the copy (a full copy lacks it, a delta removes it), never an older value: the buddy's copy never holds a value
 * older than the owner's last confirmed write, as for a value that cannot be serialized. It stays out of later copies
 * until the application sets it again (or, under {@code READ_MARKS_DIRTY}, reads it: it may have shrunk), so a later
 * request that sets something small is not failed because of it.
 *
 * <p>Implementation notes: not thread-safe; one per {@link OwnedSession}, used only under that session's lock.
 */
final class CopyBudget {
  /** Wire bytes of each attribute in the copy. */
  private final Map<String, Long> entries = new HashMap<>();
  private long attributeBytes;
  /** Wire bytes of the copy's id, versions and metadata. */
  private long headBytes;
  /** Attributes left out of the copy, until they change again. Null while there is none (the common case). */
  private Set<String> leftOut;

  /** Whether {@code name} was left out of the copy and has not changed since. */
  boolean isLeftOut(String name) {
    return leftOut != null && leftOut.contains(name);
  }

  /** These attributes changed (or may have): they are tried again. */
  void changed(Collection<String> names) {
    if (leftOut != null) {
      leftOut.removeAll(names);
    }
  }

  /** Forgets attributes left out that the session no longer has. */
  void retainExisting(Set<String> names) {
    if (leftOut != null) {
      leftOut.retainAll(names);
    }
  }

  /**
   * A full copy of {@code attributes}: removes from that map, as the rule says, what does not fit within {@code
   * limit}, and from then on tracks the copy as sent.
   *
   * @param attributes the copy's attributes, modified in place
   * @param changed the attributes the update carries as changed
   */
  Optional<SessionTooLarge> fitFull(String id, SessionMetadata metadata, Map<String, Blob> attributes,
      Set<String> changed, long limit) {
    headBytes = MessageCodec.snapshotHeadBytes(id, metadata);
    entries.clear();
    attributeBytes = 0;
    for (Map.Entry<String, Blob> e : attributes.entrySet()) {
      long bytes = MessageCodec.attributeBytes(e.getKey(), e.getValue());
      entries.put(e.getKey(), bytes);
      attributeBytes += bytes;
    }
    long before = headBytes + attributeBytes;
    if (before <= limit) {
      return Optional.empty();
    }
    Map<String, Long> out = new LinkedHashMap<>();
    for (String name : leaveOutOrder(entries, changed)) {
      if (headBytes + attributeBytes <= limit) {
        break;
      }
      long bytes = entries.remove(name);
      attributes.remove(name);
      attributeBytes -= bytes;
      out.put(name, bytes);
    }
    return Optional.of(leftOut(id, before, limit, out));
  }

  /** A delta that did not fit as built: its attributes with what was left out moved to the removed ones, and why. */
  record Fitted(Map<String, Blob> set, Set<String> removed, SessionTooLarge tooLarge) {}

  /**
   * A delta over the copy: if it fits within {@code limit} (the usual case), tracks the copy with the delta applied
   * and returns null, allocating nothing. Otherwise moves from {@code set} to {@code removed}, as the rule says, what
   * does not fit (and, if that is not enough, removes other attributes of the copy) in copies of the two, tracks the
   * copy with that delta applied, and returns it.
   *
   * @param metadata the delta's metadata, or null when it carries none
   * @param set the attributes the delta sets; not modified
   * @param removed the attributes the delta removes; not modified
   */
  Fitted fitDelta(String id, SessionMetadata metadata, Map<String, Blob> set, Set<String> removed, long limit) {
    long head = metadata == null ? headBytes : MessageCodec.snapshotHeadBytes(id, metadata);
    long attributes = attributeBytes;
    if (!removed.isEmpty()) {
      for (String name : removed) {
        attributes -= entries.getOrDefault(name, 0L);
      }
    }
    for (Map.Entry<String, Blob> e : set.entrySet()) {
      attributes += MessageCodec.attributeBytes(e.getKey(), e.getValue()) - entries.getOrDefault(e.getKey(), 0L);
    }
    if (head + attributes > limit) {
      return leaveOut(id, head, attributes, new HashMap<>(set), new HashSet<>(removed), limit);
    }
    headBytes = head;
    if (!removed.isEmpty()) {
      for (String name : removed) {
        entries.remove(name);
      }
    }
    for (Map.Entry<String, Blob> e : set.entrySet()) {
      long bytes = MessageCodec.attributeBytes(e.getKey(), e.getValue());
      Long before = entries.get(e.getKey());
      if (before == null || before != bytes) { // a value replaced by one of the same size boxes nothing
        entries.put(e.getKey(), bytes);
      }
    }
    attributeBytes = attributes;
    return null;
  }

  /**
   * {@link #fitDelta} of a delta that sets one attribute and removes none (the usual request), without walking a map
   * twice: a one-entry immutable map makes a set, an entry and an iterator for every walk.
   */
  Fitted fitOne(String id, SessionMetadata metadata, String name, Blob value, long limit) {
    long head = metadata == null ? headBytes : MessageCodec.snapshotHeadBytes(id, metadata);
    long bytes = MessageCodec.attributeBytes(name, value);
    Long before = entries.get(name);
    long attributes = attributeBytes + bytes - (before == null ? 0 : before);
    if (head + attributes > limit) {
      Map<String, Blob> set = new HashMap<>();
      set.put(name, value);
      return leaveOut(id, head, attributes, set, new HashSet<>(), limit);
    }
    headBytes = head;
    if (before == null || before != bytes) {
      entries.put(name, bytes);
    }
    attributeBytes = attributes;
    return null;
  }

  /** {@link #fitDelta} past the limit, on the caller's copies of the delta's set and removed attributes. */
  private Fitted leaveOut(String id, long head, long attributes, Map<String, Blob> set, Set<String> removed,
      long limit) {
    Map<String, Long> setBytes = new HashMap<>();
    for (Map.Entry<String, Blob> e : set.entrySet()) {
      setBytes.put(e.getKey(), MessageCodec.attributeBytes(e.getKey(), e.getValue()));
    }
    long before = head + attributes;
    Map<String, Long> out = new LinkedHashMap<>();
    for (String name : leaveOutOrder(setBytes, Set.of())) { // every one of them changed
      if (head + attributes <= limit) {
        break;
      }
      long bytes = setBytes.remove(name);
      set.remove(name);
      removed.add(name);
      attributes -= bytes;
      out.put(name, bytes);
    }
    List<String> others = new ArrayList<>(entries.keySet());
    others.removeIf(name -> setBytes.containsKey(name) || removed.contains(name));
    others.sort(Comparator.comparing(entries::get, Comparator.reverseOrder()));
    for (String name : others) {
      if (head + attributes <= limit) {
        break;
      }
      long bytes = entries.get(name);
      removed.add(name);
      attributes -= bytes;
      out.put(name, bytes);
    }
    headBytes = head;
    removed.forEach(entries::remove);
    entries.putAll(setBytes);
    attributeBytes = attributes;
    return new Fitted(set, removed, leftOut(id, before, limit, out));
  }

  /** What the copy takes now, as last fitted. */
  long bytes() {
    return headBytes + attributeBytes;
  }

  private SessionTooLarge leftOut(String id, long before, long limit, Map<String, Long> out) {
    if (leftOut == null) {
      leftOut = new HashSet<>();
    }
    leftOut.addAll(out.keySet());
    return new SessionTooLarge(id, before, limit, out, headBytes + attributeBytes);
  }

  /** The changed attributes largest first, then the others largest first. */
  private static List<String> leaveOutOrder(Map<String, Long> sizes, Set<String> changed) {
    Comparator<String> largestFirst = Comparator.comparing(sizes::get, Comparator.reverseOrder());
    List<String> order = new ArrayList<>(sizes.keySet());
    order.sort(Comparator.comparing((String name) -> !changed.contains(name)).thenComparing(largestFirst));
    return order;
  }
}
