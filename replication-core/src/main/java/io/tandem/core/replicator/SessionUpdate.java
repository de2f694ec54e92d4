package io.tandem.core.replicator;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.wire.Message;
import java.util.Map;
import java.util.Set;

/**
 * One flush of one session, already serialized: immutable, so a request thread can hand it to the async queue
 * and go on while the application keeps mutating its objects. Consecutive updates of a session coalesce into one
 * ({@link CoalescedUpdate}).
 */
sealed interface SessionUpdate {

  String sessionId();

  long epoch();

  long version();

  Message toMessage();

  /** Bytes of attribute data carried, for throttling and stats. */
  long payloadBytes();

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
  }
}
