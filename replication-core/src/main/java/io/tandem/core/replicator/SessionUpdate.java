package io.tandem.core.replicator;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.wire.Message;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One flush of one session, already serialized: immutable, so a request thread can hand it to the async queue
 * and go on while the application keeps mutating its objects. Consecutive updates of a session coalesce into one.
 */
sealed interface SessionUpdate {

  String sessionId();

  long epoch();

  long version();

  Message toMessage();

  /** Bytes of attribute data carried, for throttling and stats. */
  long payloadBytes();

  /**
   * This update followed by {@code next} as a single update, or null when they cannot merge (another session,
   * another epoch, or {@code next} does not start where this one ends).
   */
  SessionUpdate then(SessionUpdate next);

  record Full(SessionSnapshot snapshot) implements SessionUpdate {
    @Override
    public String sessionId() {
      return snapshot.id();
    }

    @Override
    public long epoch() {
      return snapshot.epoch();
    }

    @Override
    public long version() {
      return snapshot.version();
    }

    @Override
    public Message toMessage() {
      return new Message.FullSession(snapshot);
    }

    @Override
    public long payloadBytes() {
      return snapshot.serializedSize();
    }

    @Override
    public SessionUpdate then(SessionUpdate next) {
      if (!next.sessionId().equals(sessionId()) || next.epoch() != epoch()) {
        return null;
      }
      if (next instanceof Full) {
        return next;
      }
      Delta delta = (Delta) next;
      if (delta.baseVersion() != version()) {
        return null;
      }
      Map<String, Blob> attributes = new HashMap<>(snapshot.attributes());
      delta.removed().forEach(attributes::remove);
      attributes.putAll(delta.set());
      SessionMetadata metadata = delta.metadata() != null ? delta.metadata() : snapshot.metadata();
      return new Full(new SessionSnapshot(sessionId(), epoch(), delta.version(), metadata, attributes));
    }
  }

  record Delta(
      String sessionId,
      long epoch,
      long baseVersion,
      long version,
      SessionMetadata metadata,
      Map<String, Blob> set,
      Set<String> removed)
      implements SessionUpdate {

    @Override
    public Message toMessage() {
      return new Message.SessionDelta(sessionId, epoch, baseVersion, version, metadata, set, removed);
    }

    @Override
    public long payloadBytes() {
      long bytes = metadata == null ? 0 : metadata.serializedSize();
      for (Map.Entry<String, Blob> e : set.entrySet()) {
        bytes += e.getKey().length() + e.getValue().size();
      }
      return bytes;
    }

    @Override
    public SessionUpdate then(SessionUpdate next) {
      if (!next.sessionId().equals(sessionId) || next.epoch() != epoch) {
        return null;
      }
      if (next instanceof Full) {
        return next;
      }
      Delta later = (Delta) next;
      if (later.baseVersion() != version) {
        return null;
      }
      Map<String, Blob> mergedSet = new HashMap<>(set);
      Set<String> mergedRemoved = new HashSet<>(removed);
      later.removed().forEach(
          name -> {
            mergedSet.remove(name);
            mergedRemoved.add(name);
          });
      later.set().forEach(
          (name, value) -> {
            mergedRemoved.remove(name);
            mergedSet.put(name, value);
          });
      SessionMetadata mergedMetadata = later.metadata() != null ? later.metadata() : metadata;
      return new Delta(sessionId, epoch, baseVersion, later.version(), mergedMetadata, mergedSet, mergedRemoved);
    }
  }
}
