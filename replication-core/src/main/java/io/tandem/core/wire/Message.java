package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every message Tandem nodes exchange. Each has a fixed {@link MessageType}; the wire format is written by
 * {@link MessageCodec}. Requests are answered with {@link Ack}, {@link Nack} or, for {@link Locate} and {@link
 * Migrate}, their own reply types.
 */
public sealed interface Message {

  MessageType type();

  /**
   * First message on a connection, in both directions. The proof is an HMAC over the peer's nonce (and both hellos'
   * version ranges). {@code versions} is the range the sender speaks; a hello of a node before version negotiation
   * (version 4 and older, read from its own framing) holds that one version alone.
   */
  record Handshake(ProtocolVersions versions, String clusterName, NodeId node, Blob nonce, Blob proof)
      implements Message {
    public Handshake {
      Objects.requireNonNull(versions, "versions");
      Objects.requireNonNull(clusterName, "clusterName");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(nonce, "nonce");
      Objects.requireNonNull(proof, "proof");
    }

    @Override
    public MessageType type() {
      return MessageType.HANDSHAKE;
    }
  }

  /** The whole session. Applies over any older state of the same or an older epoch. */
  record FullSession(SessionSnapshot snapshot) implements Message {
    public FullSession {
      Objects.requireNonNull(snapshot, "snapshot");
    }

    @Override
    public MessageType type() {
      return MessageType.FULL_SESSION;
    }
  }

  /**
   * The attributes changed since {@code baseVersion}. Applies only to a backup at exactly {@code baseVersion} in
   * the same epoch; a backup at another version answers {@link Nack.Reason#GAP} and gets a full resend.
   *
   * @param metadata the new metadata, or null when it did not change
   * @param set attributes set, with their new serialized values
   * @param removed attributes removed
   */
  record SessionDelta(
      String sessionId,
      long epoch,
      long baseVersion,
      long version,
      SessionMetadata metadata,
      Map<String, Blob> set,
      Set<String> removed)
      implements Message {
    public SessionDelta {
      Objects.requireNonNull(sessionId, "sessionId");
      set = Map.copyOf(set);
      removed = Set.copyOf(removed);
      if (baseVersion >= version) {
        throw new IllegalArgumentException("baseVersion " + baseVersion + " must be < version " + version);
      }
    }

    @Override
    public MessageType type() {
      return MessageType.SESSION_DELTA;
    }
  }

  /** Last-access times of sessions read without change, coalesced by the owner. */
  record TouchBatch(List<Touch> touches) implements Message {
    public TouchBatch {
      touches = List.copyOf(touches);
    }

    @Override
    public MessageType type() {
      return MessageType.TOUCH_BATCH;
    }
  }

  record Touch(String sessionId, long epoch, long lastAccessedTime) {
    public Touch {
      Objects.requireNonNull(sessionId, "sessionId");
    }
  }

  /** The session is gone (invalidated, expired) or has moved away from this backup (released). */
  record Invalidate(String sessionId, long epoch, long version, InvalidateReason reason) implements Message {
    public Invalidate {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public MessageType type() {
      return MessageType.INVALIDATE;
    }
  }

  enum InvalidateReason {
    /** The application invalidated it: it must never come back. */
    INVALIDATED,
    /** The owner expired it: it must never come back. */
    EXPIRED,
    /** The session now lives elsewhere; this copy is no longer a backup. */
    RELEASED
  }

  /** The session's id changed (for example at login); the backup is re-keyed and moves to {@code version}. */
  record IdChange(String oldId, String newId, long epoch, long version) implements Message {
    public IdChange {
      Objects.requireNonNull(oldId, "oldId");
      Objects.requireNonNull(newId, "newId");
    }

    @Override
    public MessageType type() {
      return MessageType.ID_CHANGE;
    }
  }

  /** Applied (or already held). Epoch and version are what the receiver holds now; zero for batches. */
  record Ack(long epoch, long version) implements Message {
    @Override
    public MessageType type() {
      return MessageType.ACK;
    }
  }

  /**
   * A cumulative acknowledgement, sent only as a reply: each of the {@code count} requests of this connection whose
   * correlation ids run up to and including the frame's correlation id was answered with its {@link #impliedBy
   * implied} {@link Ack}. A connection delivers requests in order, so a buddy acknowledges everything one read
   * brought in with one frame; any other answer (a {@link Nack}, an ack of another version, a reply of another type)
   * still travels alone under its own correlation id.
   */
  record AckRange(int count) implements Message {
    /** The most one frame may acknowledge; a larger count is malformed (it bounds the work one frame can cause). */
    public static final int MAX_COUNT = 1 << 16;

    public AckRange {
      if (count < 1 || count > MAX_COUNT) {
        throw new IllegalArgumentException("count must be 1.." + MAX_COUNT + ", was " + count);
      }
    }

    @Override
    public MessageType type() {
      return MessageType.ACK_RANGE;
    }

    /**
     * The {@link Ack} that means "applied exactly as sent" for {@code request}, or null for requests whose replies
     * carry more than that (locate, migrate, bulk transfer, handshake). A range acknowledges a request with this.
     */
    public static Ack impliedBy(Message request) {
      if (request instanceof InContext scoped) {
        return impliedBy(scoped.message()); // a context's request is acknowledged as the request it carries
      }
      if (request instanceof SessionDelta d) {
        return new Ack(d.epoch(), d.version());
      } else if (request instanceof FullSession f) {
        return new Ack(f.snapshot().epoch(), f.snapshot().version());
      } else if (request instanceof Invalidate i) {
        return new Ack(i.epoch(), i.version());
      } else if (request instanceof IdChange c) {
        return new Ack(c.epoch(), c.version());
      } else if (request instanceof TouchBatch) {
        return new Ack(0, 0);
      }
      return null;
    }

    /**
     * Whether {@code reply} is exactly {@link #impliedBy(Message) impliedBy(request)}: compared field by field, without
     * making the Ack only to compare it (the buddy asks this of every reply it batches).
     */
    public static boolean isImpliedBy(Message request, Message reply) {
      if (!(reply instanceof Ack ack)) {
        return false;
      }
      if (request instanceof InContext scoped) {
        return isImpliedBy(scoped.message(), reply);
      }
      if (request instanceof SessionDelta d) {
        return ack.epoch() == d.epoch() && ack.version() == d.version();
      } else if (request instanceof FullSession f) {
        return ack.epoch() == f.snapshot().epoch() && ack.version() == f.snapshot().version();
      } else if (request instanceof Invalidate i) {
        return ack.epoch() == i.epoch() && ack.version() == i.version();
      } else if (request instanceof IdChange c) {
        return ack.epoch() == c.epoch() && ack.version() == c.version();
      } else if (request instanceof TouchBatch) {
        return ack.epoch() == 0 && ack.version() == 0;
      }
      return false;
    }
  }

  /**
   * Not applied, and why. Epoch and version are what the receiver holds (zero when nothing). A {@link Reason#REFUSED}
   * names which refusal it is ({@link Refusal}, since protocol version 6); every other reason, and a refusal read from
   * a version-5 peer (which says why in {@code detail} only), carries {@link Refusal#UNSPECIFIED}.
   */
  record Nack(Reason reason, long epoch, long version, String detail, Refusal refusal) implements Message {
    public Nack {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
      Objects.requireNonNull(refusal, "refusal");
      if (reason != Reason.REFUSED && refusal != Refusal.UNSPECIFIED) {
        throw new IllegalArgumentException("a " + reason + " nack names no refusal, got " + refusal);
      }
    }

    /** A nack for any reason but {@link Reason#REFUSED}, which names its {@link Refusal} ({@link #refused}). */
    public Nack(Reason reason, long epoch, long version, String detail) {
      this(reason, epoch, version, detail, Refusal.UNSPECIFIED);
    }

    /** A refusal of {@code why}, the receiver holding nothing it could name. */
    public static Nack refused(Refusal why, String detail) {
      return new Nack(Reason.REFUSED, 0, 0, detail, why);
    }

    /** A refusal of {@code why}, the receiver holding the session at {@code epoch} and {@code version}. */
    public static Nack refused(Refusal why, long epoch, long version, String detail) {
      return new Nack(Reason.REFUSED, epoch, version, detail, why);
    }

    @Override
    public MessageType type() {
      return MessageType.NACK;
    }

    public enum Reason {
      /** The receiver's copy is not at the delta's base version: send the full session. */
      GAP,
      /** The receiver holds a newer epoch: the sender is no longer the owner. */
      STALE_EPOCH,
      /** The receiver has no such session. */
      UNKNOWN_SESSION,
      /** The session was invalidated or expired and must not come back. */
      INVALIDATED,
      /** The message was malformed, too large, or named a class that is not allowed. */
      REFUSED,
      /** The receiver does not handle this message type or version. */
      UNSUPPORTED,
      /**
       * The receiver's handler failed on this request. Transports turn it into {@code RemoteHandlerException}; the
       * engine never sees it.
       */
      HANDLER_FAILED,
      /**
       * The receiver, as a buddy, holds {@code maxBackupBytes} of copies already: it did not store this copy of a
       * session it does not hold, or this update that would grow a copy it does hold (which it keeps as it was). The
       * sender's session has no current copy there: it is re-sent in full later. Since protocol version 4.
       */
      BACKUP_STORE_FULL,
      /**
       * The receiver runs no application of the request's context ({@link InContext}): it holds nothing of it and
       * cannot be its buddy. Said by the receiving node's dispatcher, never by an engine; since protocol version 5.
       */
      CONTEXT_NOT_DEPLOYED
    }

    /**
     * Which refusal a {@link Reason#REFUSED} is (docs/protocol.md 3.3): every one says "not now, or not here", none
     * fences the sender. Since protocol version 6; carried on the wire by ordinal, so new values go at the end.
     */
    public enum Refusal {
      /** Not a refusal, or one from a version-5 peer, which says why in the detail only. */
      UNSPECIFIED,
      /** Owned here, not confirmed since a pause or a cut: the copy may be stale, and this node asks first (R1, R4). */
      UNCONFIRMED_HERE,
      /** Let go of here a moment ago, after the sender looked it up: retry (R2). */
      LET_GO_A_MOMENT_AGO,
      /** The sender is not a member of this node's view (R3). */
      NOT_A_MEMBER,
      /** Being handed to another member by this node: ask every member (R5). */
      BEING_HANDED,
      /** Only a backup is held here, and its owner is alive: ask the owner (R6). */
      OWNER_ALIVE,
      /** The backup held here was confirmed to its owner a moment ago, which may serve it on that lease (11.3.13). */
      CONFIRMED_TO_OWNER,
      /** A copy left from when this node was its owner's buddy, not confirmed yet: ask every member again (R7). */
      LEFTOVER_UNCONFIRMED,
      /** Handed to another member a moment ago: ask every member (R8). */
      HANDED_AWAY,
      /** Migrated in here, the former holder's buddy's copy not yet released: retry (11.3.34). */
      RELEASE_PENDING,
      /** The backup changed while it was being handed out: ask every member again. */
      CHANGED_WHILE_HANDED_OUT,
      /** The request cannot be applied as sent: a frame that cannot be read, an id change to itself (R9, R10). */
      MALFORMED
    }
  }

  /** Who holds this session? Asked of every member when a node receives a request for a session it lacks. */
  record Locate(String sessionId) implements Message {
    public Locate {
      Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public MessageType type() {
      return MessageType.LOCATE;
    }
  }

  record LocateReply(String sessionId, Holding holding, long epoch, long version) implements Message {
    public LocateReply {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(holding, "holding");
    }

    @Override
    public MessageType type() {
      return MessageType.LOCATE_REPLY;
    }

    /**
     * What the member holds. {@code ENDED} and {@code UNCONFIRMED} carry no copy: the first says the session ended
     * there (a tombstone, at {@code epoch}), so no copy of it may be served again; the second that the member owned
     * it before a pause and has not confirmed it since, so it exists and must not be taken for absent, nor taken.
     */
    public enum Holding {
      NONE,
      PRIMARY,
      BACKUP,
      ENDED,
      UNCONFIRMED;

      /** Whether the member holds a copy that can be handed over. */
      public boolean hasCopy() {
        return this == PRIMARY || this == BACKUP;
      }
    }
  }

  /**
   * Hand the session over to {@code requester}, which becomes its owner at {@code newEpoch}, or, when {@code
   * newEpoch} is 0, at the epoch after the one the receiver holds (the requester asks without looking the session up
   * first; a receiver that predates this answers {@link Nack.Reason#STALE_EPOCH} with its epoch). Answered with the
   * session as a {@link FullSession} or a {@link Nack}.
   */
  record Migrate(String sessionId, NodeId requester, long newEpoch) implements Message {
    public Migrate {
      Objects.requireNonNull(sessionId, "sessionId");
      Objects.requireNonNull(requester, "requester");
    }

    @Override
    public MessageType type() {
      return MessageType.MIGRATE;
    }
  }

  /** Many sessions at once: re-protection, a joining buddy's backups, or a graceful handoff. */
  record BulkTransfer(Purpose purpose, List<SessionSnapshot> sessions) implements Message {
    public BulkTransfer {
      Objects.requireNonNull(purpose, "purpose");
      sessions = List.copyOf(sessions);
    }

    @Override
    public MessageType type() {
      return MessageType.BULK_TRANSFER;
    }

    public enum Purpose {
      /** Keep these as backups of the sender's sessions. */
      BACKUP,
      /** The sender is leaving: the receiver owns these now. */
      HANDOFF
    }
  }

  /**
   * The answer to a {@link BulkTransfer} of backups of which the receiver refused some sessions (one it applied whole
   * is answered with an {@link Ack}): each refusal as the receiver would have answered that session sent alone, so
   * that the owner fences a copy the cluster has moved on from instead of counting it protected.
   */
  record BulkRefusals(List<Refusal> refusals) implements Message {
    public BulkRefusals {
      refusals = List.copyOf(refusals);
      if (refusals.isEmpty()) {
        throw new IllegalArgumentException("a bulk transfer applied whole is answered with an Ack");
      }
    }

    @Override
    public MessageType type() {
      return MessageType.BULK_REFUSALS;
    }

    /** One session of the batch, and why it was refused. */
    public record Refusal(String sessionId, Nack nack) {
      public Refusal {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(nack, "nack");
      }
    }
  }

  /**
   * A request of one application: {@code message}, for the context named {@code context} on the receiving node (each
   * context runs its own engine over the node's one transport). Answered with what that context's engine answers,
   * unwrapped (the correlation id pairs them), or with {@link Nack.Reason#CONTEXT_NOT_DEPLOYED} when the receiver
   * runs no such context. Since protocol version 5.
   */
  record InContext(String context, Message message) implements Message {
    /** Longest context name in UTF-8 bytes: well inside the 1 KiB a frame keeps beyond {@code maxSessionSize}. */
    public static final int MAX_CONTEXT_BYTES = 256;

    public InContext {
      Objects.requireNonNull(context, "context");
      Objects.requireNonNull(message, "message");
      if (Utf8.encodedLength(context) > MAX_CONTEXT_BYTES) {
        throw new IllegalArgumentException("context name is longer than " + MAX_CONTEXT_BYTES + " bytes");
      }
      if (message instanceof InContext || message instanceof Contexts || message instanceof Handshake) {
        throw new IllegalArgumentException("a " + message.type() + " is not a message of one context");
      }
    }

    @Override
    public MessageType type() {
      return MessageType.IN_CONTEXT;
    }
  }

  /**
   * The contexts (applications) the sender runs now, as a request; answered with the receiver's own. {@code
   * incarnation} names one run of the sender's node runtime and {@code revision} counts its changes within it, so a
   * receiver keeps the newest list it heard. Since protocol version 5.
   */
  record Contexts(long incarnation, long revision, List<String> contexts) implements Message {
    public Contexts {
      contexts = List.copyOf(contexts);
    }

    @Override
    public MessageType type() {
      return MessageType.CONTEXTS;
    }
  }
}
