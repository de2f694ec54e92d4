package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The wire format. A frame is {@code [int32 length][u8 protocol version][u8 type][u8 flags][int64 correlation
 * id][payload]}, big-endian, where the length counts every byte after itself. Payloads are written field by field;
 * enum constants travel as their ordinal, so constants of {@link Message}'s enums may only ever be appended.
 *
 * <p>The hello is the exception that lets versions negotiate: a {@link MessageType#HANDSHAKE} frame carries {@link
 * #HELLO_FRAMING} where other frames carry their version, and its payload ({@code [int32 lowest][int32 highest]
 * [cluster][node][nonce][proof]}) is laid out the same by every version from 5 on, so that any later version reads any
 * earlier one's hello and can answer or refuse it by name. A version that needs more in its handshake sends it after
 * the negotiation, never in the hello. A handshake frame framed below {@link #HELLO_FRAMING} is a hello of a node
 * before negotiation (versions 1 to 4: {@code [int32 version][cluster][node][nonce][proof]}), read as that one version.
 *
 * <p>Decoding is strict: every length is checked against the bytes present before allocating, a payload must be
 * consumed exactly, and whatever a record's constructor rejects becomes a {@link MalformedMessageException}.
 */
public final class MessageCodec {
  /**
   * 1: the first release. 2: adds {@link MessageType#ACK_RANGE}, which a version-1 node could not read. 3: a {@link
   * Message.LocateReply} may say {@code ENDED} or {@code UNCONFIRMED}, and a bulk transfer of backups may be answered
   * with {@link MessageType#BULK_REFUSALS}, neither of which a version-2 node could read. 4: a buddy may refuse with
   * {@link Message.Nack.Reason#BACKUP_STORE_FULL}, a reason a version-3 node could not read. 5: the hello carries the
   * range of versions its sender speaks ({@link ProtocolVersions}), framed as {@link #HELLO_FRAMING} whatever version
   * is then spoken, and the two ends speak the highest version they share; every request of an engine travels in a
   * {@link Message.InContext} naming its application, nodes tell each other the applications they run with {@link
   * Message.Contexts}, and a node refuses a request of an application it does not run with {@link
   * Message.Nack.Reason#CONTEXT_NOT_DEPLOYED}: one transport and one membership member serve every application of a
   * node. 6: a {@link Message.Nack.Reason#REFUSED} names which refusal it is ({@link Message.Nack.Refusal}), written
   * after the detail; to a version-5 peer it is written as before, and one read from it is {@code UNSPECIFIED}.
   *
   * <p>The highest version this code implements, and the one {@link #encode(Envelope)} writes.
   */
  public static final int PROTOCOL_VERSION = 6;
  /** The first version whose {@link Message.Nack} carries its {@link Message.Nack.Refusal}. */
  static final int TYPED_REFUSALS = 6;
  /**
   * What a handshake frame carries in its version byte, in every version from 5 on: it names the hello's layout, not
   * the version spoken, so it never changes.
   */
  public static final int HELLO_FRAMING = 5;
  public static final int LENGTH_BYTES = 4;
  /** Bytes counted by the length before the payload: version, type, flags, correlation id. */
  public static final int HEADER_BYTES = 11;

  static final int FLAG_RESPONSE = 1;

  private MessageCodec() {}

  /**
   * The complete frame, ready to write, over an array of exactly its size: the message is measured first (a walk
   * that copies nothing), so the frame is allocated once and each value is copied into it once.
   */
  public static ByteBuffer encode(Envelope envelope) {
    return encode(envelope, PROTOCOL_VERSION);
  }

  /**
   * {@link #encode(Envelope)} for a connection that negotiated {@code version}; a handshake is framed as {@link
   * #HELLO_FRAMING} whatever the version.
   */
  public static ByteBuffer encode(Envelope envelope, int version) {
    if (version < 1 || version > 255) {
      throw new IllegalArgumentException("protocol version " + version + " does not fit a frame's version byte");
    }
    WireWriter measured = WireWriter.measuring();
    writeFrame(measured, envelope, version);
    WireWriter w = WireWriter.sized(measured.position());
    writeFrame(w, envelope, version);
    return w.toBuffer();
  }

  /**
   * The hello a node before version negotiation (version 4 and older) sent, framed and laid out as it was: for a probe
   * that asks a member that closed on a version-5 hello whether it is such a node.
   */
  public static byte[] encodeLegacyHello(int version, String clusterName, NodeId node, Blob nonce) {
    if (version < 1 || version >= HELLO_FRAMING) {
      throw new IllegalArgumentException("protocol version " + version + " negotiates; its hello is not a legacy one");
    }
    WireWriter measured = WireWriter.measuring();
    writeLegacyHello(measured, version, clusterName, node, nonce);
    WireWriter w = WireWriter.sized(measured.position());
    writeLegacyHello(w, version, clusterName, node, nonce);
    ByteBuffer frame = w.toBuffer();
    byte[] bytes = new byte[frame.remaining()];
    frame.get(bytes);
    return bytes;
  }

  private static void writeLegacyHello(WireWriter w, int version, String clusterName, NodeId node, Blob nonce) {
    w.i32(0);
    w.u8(version);
    w.u8(MessageType.HANDSHAKE.code());
    w.u8(0);
    w.i64(0);
    w.i32(version);
    w.string(clusterName);
    w.string(node.value());
    w.blob(nonce);
    w.blob(Blob.EMPTY);
    w.putI32(0, (int) (w.position() - LENGTH_BYTES));
  }

  /** Reads the payload of a hello framed below {@link #HELLO_FRAMING}: one version, as nodes before version 5 sent. */
  static Message.Handshake decodeLegacyHello(ByteBuffer payload) {
    WireReader r = new WireReader(payload, false);
    Message.Handshake hello;
    try {
      hello = new Message.Handshake(ProtocolVersions.only(r.i32("protocolVersion")), r.string("clusterName"),
          new NodeId(r.string("node")), r.blob("nonce"), r.blob("proof"));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new MalformedMessageException("legacy HANDSHAKE payload is invalid: " + e.getMessage());
    }
    r.expectEnd("legacy HANDSHAKE");
    return hello;
  }

  private static void writeFrame(WireWriter w, Envelope envelope, int version) {
    w.i32(0);
    w.u8(envelope.message() instanceof Message.Handshake ? HELLO_FRAMING : version);
    w.u8(envelope.message().type().code());
    w.u8(envelope.response() ? FLAG_RESPONSE : 0);
    w.i64(envelope.correlationId());
    writePayload(w, envelope.message(), version);
    w.putI32(0, (int) (w.position() - LENGTH_BYTES));
  }

  public static byte[] encodeToBytes(Envelope envelope) {
    return encodeToBytes(envelope, PROTOCOL_VERSION);
  }

  public static byte[] encodeToBytes(Envelope envelope, int version) {
    ByteBuffer frame = encode(envelope, version);
    if (frame.arrayOffset() == 0 && frame.position() == 0 && frame.remaining() == frame.array().length) {
      return frame.array(); // exactly sized, and nobody else holds it
    }
    byte[] bytes = new byte[frame.remaining()];
    frame.get(bytes);
    return bytes;
  }

  /** Decodes exactly one complete frame (for in-memory transports and tests); same checks as the FrameDecoder. */
  public static Envelope decodeFrame(ByteBuffer frame, int maxFrameSize) {
    FrameDecoder decoder = new FrameDecoder(maxFrameSize);
    decoder.feed(frame);
    Envelope envelope = decoder.next();
    decoder.finish();
    if (envelope == null) {
      throw new TruncatedFrameException(0, LENGTH_BYTES);
    }
    return envelope;
  }

  /** Decodes a payload of the given type; the buffer must hold exactly that payload. Values are copied out of it. */
  public static Message decodePayload(MessageType type, ByteBuffer payload) {
    return decodePayload(type, payload, false, PROTOCOL_VERSION);
  }

  /**
   * @param mayKeepArray whether nobody writes to the payload's backing array again, so that large values may stay
   *     in it rather than be copied (see {@link WireReader})
   * @param version the protocol version the payload was written in
   */
  static Message decodePayload(MessageType type, ByteBuffer payload, boolean mayKeepArray, int version) {
    WireReader r = new WireReader(payload, mayKeepArray);
    Message message;
    try {
      message = readPayload(type, r, version);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new MalformedMessageException(type + " payload is invalid: " + e.getMessage());
    }
    r.expectEnd(type.toString());
    return message;
  }

  private static void writePayload(WireWriter w, Message message, int protocolVersion) {
    if (message instanceof Message.Handshake m) {
      w.i32(m.versions().lowest());
      w.i32(m.versions().highest());
      w.string(m.clusterName());
      w.string(m.node().value());
      w.blob(m.nonce());
      w.blob(m.proof());
    } else if (message instanceof Message.FullSession m) {
      writeSnapshot(w, m.snapshot());
    } else if (message instanceof Message.SessionDelta m) {
      w.string(m.sessionId());
      w.i64(m.epoch());
      w.i64(m.baseVersion());
      w.i64(m.version());
      w.bool(m.metadata() != null);
      if (m.metadata() != null) {
        writeMetadata(w, m.metadata());
      }
      writeBlobs(w, m.set());
      w.i32(m.removed().size());
      if (!m.removed().isEmpty()) {
        for (String name : m.removed()) {
          w.string(name);
        }
      }
    } else if (message instanceof Message.TouchBatch m) {
      w.i32(m.touches().size());
      for (Message.Touch t : m.touches()) {
        w.string(t.sessionId());
        w.i64(t.epoch());
        w.i64(t.lastAccessedTime());
      }
    } else if (message instanceof Message.Invalidate m) {
      w.string(m.sessionId());
      w.i64(m.epoch());
      w.i64(m.version());
      w.u8(m.reason().ordinal());
    } else if (message instanceof Message.IdChange m) {
      w.string(m.oldId());
      w.string(m.newId());
      w.i64(m.epoch());
      w.i64(m.version());
    } else if (message instanceof Message.AckRange m) {
      w.i32(m.count());
    } else if (message instanceof Message.Ack m) {
      w.i64(m.epoch());
      w.i64(m.version());
    } else if (message instanceof Message.Nack m) {
      writeNack(w, m, protocolVersion);
    } else if (message instanceof Message.Locate m) {
      w.string(m.sessionId());
    } else if (message instanceof Message.LocateReply m) {
      w.string(m.sessionId());
      w.u8(m.holding().ordinal());
      w.i64(m.epoch());
      w.i64(m.version());
    } else if (message instanceof Message.Migrate m) {
      w.string(m.sessionId());
      w.string(m.requester().value());
      w.i64(m.newEpoch());
    } else if (message instanceof Message.BulkTransfer m) {
      w.u8(m.purpose().ordinal());
      w.i32(m.sessions().size());
      m.sessions().forEach(s -> writeSnapshot(w, s));
    } else if (message instanceof Message.BulkRefusals m) {
      w.i32(m.refusals().size());
      for (Message.BulkRefusals.Refusal refusal : m.refusals()) {
        w.string(refusal.sessionId());
        writeNack(w, refusal.nack(), protocolVersion);
      }
    } else if (message instanceof Message.InContext m) {
      w.string(m.context());
      w.u8(m.message().type().code());
      writePayload(w, m.message(), protocolVersion);
    } else if (message instanceof Message.Contexts m) {
      w.i64(m.incarnation());
      w.i64(m.revision());
      w.i32(m.contexts().size());
      m.contexts().forEach(w::string);
    } else {
      throw new IllegalArgumentException("no encoding for " + message.type());
    }
  }

  /** A version-5 peer reads no refusal: it is told why in the detail only. */
  private static void writeNack(WireWriter w, Message.Nack nack, int protocolVersion) {
    w.u8(nack.reason().ordinal());
    w.i64(nack.epoch());
    w.i64(nack.version());
    w.string(nack.detail());
    if (protocolVersion >= TYPED_REFUSALS) {
      w.u8(nack.refusal().ordinal());
    }
  }

  private static Message.Nack readNack(WireReader r, int protocolVersion) {
    Message.Nack.Reason reason = r.enumValue(Message.Nack.Reason.class, "reason");
    long epoch = r.i64("epoch");
    long heldVersion = r.i64("version");
    String detail = r.string("detail");
    // A refusal a later release added reads as UNSPECIFIED: the detail says why in words, and a new refusal needs no
    // new protocol version (a value unknown here failed the whole frame before).
    Message.Nack.Refusal refusal = protocolVersion >= TYPED_REFUSALS
        ? r.enumValueOr(Message.Nack.Refusal.class, "refusal", Message.Nack.Refusal.UNSPECIFIED) : Message.Nack.Refusal.UNSPECIFIED;
    return new Message.Nack(reason, epoch, heldVersion, detail, refusal);
  }

  private static Message readPayload(MessageType type, WireReader r, int protocolVersion) {
    return switch (type) {
      case HANDSHAKE ->
          new Message.Handshake(new ProtocolVersions(r.i32("lowestVersion"), r.i32("highestVersion")), r.string("clusterName"),
              new NodeId(r.string("node")), r.blob("nonce"), r.blob("proof"));
      case FULL_SESSION -> new Message.FullSession(readSnapshot(r));
      case SESSION_DELTA -> {
        String id = r.string("sessionId");
        long epoch = r.i64("epoch");
        long base = r.i64("baseVersion");
        long version = r.i64("version");
        SessionMetadata metadata = r.bool("metadata presence") ? readMetadata(r) : null;
        Map<String, Blob> set = readFrozenBlobs(r, "set", "set name", "set value");
        int removedCount = r.count("removed", 4);
        Set<String> removed;
        if (removedCount == 0) {
          removed = Set.of(); // the usual delta: the message's own copy would be another set
        } else {
          removed = new HashSet<>();
          for (int i = 0; i < removedCount; i++) {
            removed.add(r.string("removed name"));
          }
        }
        yield new Message.SessionDelta(id, epoch, base, version, metadata, set, removed);
      }
      case TOUCH_BATCH -> {
        int n = r.count("touches", 20);
        List<Message.Touch> touches = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          touches.add(new Message.Touch(r.string("sessionId"), r.i64("epoch"), r.i64("lastAccessedTime")));
        }
        yield new Message.TouchBatch(touches);
      }
      case INVALIDATE ->
          new Message.Invalidate(
              r.string("sessionId"), r.i64("epoch"), r.i64("version"), r.enumValue(Message.InvalidateReason.class, "reason"));
      case ID_CHANGE -> new Message.IdChange(r.string("oldId"), r.string("newId"), r.i64("epoch"), r.i64("version"));
      case ACK -> new Message.Ack(r.i64("epoch"), r.i64("version"));
      case ACK_RANGE -> new Message.AckRange(r.i32("count"));
      case NACK -> readNack(r, protocolVersion);
      case LOCATE -> new Message.Locate(r.string("sessionId"));
      case LOCATE_REPLY ->
          new Message.LocateReply(
              r.string("sessionId"), r.enumValue(Message.LocateReply.Holding.class, "holding"), r.i64("epoch"), r.i64("version"));
      case MIGRATE -> new Message.Migrate(r.string("sessionId"), new NodeId(r.string("requester")), r.i64("newEpoch"));
      case BULK_TRANSFER -> {
        Message.BulkTransfer.Purpose purpose = r.enumValue(Message.BulkTransfer.Purpose.class, "purpose");
        int n = r.count("sessions", 40);
        List<SessionSnapshot> sessions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          sessions.add(readSnapshot(r));
        }
        yield new Message.BulkTransfer(purpose, sessions);
      }
      case BULK_REFUSALS -> {
        int n = r.count("refusals", 25); // two string lengths, a reason, an epoch, a version
        List<Message.BulkRefusals.Refusal> refusals = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          refusals.add(new Message.BulkRefusals.Refusal(r.string("sessionId"), readNack(r, protocolVersion)));
        }
        yield new Message.BulkRefusals(refusals);
      }
      case IN_CONTEXT -> {
        String context = r.string("context");
        int code = r.u8("inner type");
        MessageType inner = MessageType.fromCode(code);
        if (inner == null || inner == MessageType.IN_CONTEXT || inner == MessageType.CONTEXTS || inner == MessageType.HANDSHAKE) {
          throw new MalformedMessageException("IN_CONTEXT carries a message of type " + (inner == null ? code : inner)
              + ", which is not a message of one context");
        }
        yield new Message.InContext(context, readPayload(inner, r, protocolVersion));
      }
      case CONTEXTS -> {
        long incarnation = r.i64("incarnation");
        long revision = r.i64("revision");
        int n = r.count("contexts", 4);
        List<String> contexts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          contexts.add(r.string("context"));
        }
        yield new Message.Contexts(incarnation, revision, contexts);
      }
    };
  }

  /**
   * Bytes {@code snapshot} takes in a frame: what a {@link Message.FullSession}'s payload holds, and what each session
   * adds to a {@link Message.BulkTransfer}'s. Measured as it would be written, without copying anything; equal to
   * {@link #snapshotHeadBytes} plus {@link #attributeBytes} of each attribute.
   */
  public static long snapshotBytes(SessionSnapshot snapshot) {
    WireWriter measured = WireWriter.measuring();
    writeSnapshot(measured, snapshot);
    return measured.position();
  }

  /** What a snapshot of this id and metadata takes in a frame besides its attributes (and their count). */
  public static long snapshotHeadBytes(String id, SessionMetadata metadata) {
    WireWriter measured = WireWriter.measuring();
    measured.string(id);
    measured.i64(0);
    measured.i64(0);
    writeMetadata(measured, metadata);
    measured.i32(0);
    return measured.position();
  }

  /** What one attribute adds to a snapshot in a frame: its name and its value, each with its length. */
  public static long attributeBytes(String name, Blob value) {
    WireWriter measured = WireWriter.measuring();
    measured.string(name);
    measured.blob(value);
    return measured.position();
  }

  private static void writeSnapshot(WireWriter w, SessionSnapshot s) {
    w.string(s.id());
    w.i64(s.epoch());
    w.i64(s.version());
    writeMetadata(w, s.metadata());
    writeBlobs(w, s.attributes());
  }

  private static SessionSnapshot readSnapshot(WireReader r) {
    String id = r.string("sessionId");
    long epoch = r.i64("epoch");
    long version = r.i64("version");
    SessionMetadata metadata = readMetadata(r);
    return SessionSnapshot.owning(id, epoch, version, metadata, readBlobs(r, "attributes", "attributes name",
        "attributes value")); // built for it alone
  }

  private static void writeMetadata(WireWriter w, SessionMetadata m) {
    w.i64(m.creationTime());
    w.i64(m.lastAccessedTime());
    w.i32(m.maxInactiveIntervalSeconds());
    w.nullableString(m.authType());
    w.nullableBlob(m.principal());
    writeBlobs(w, m.notes());
  }

  private static SessionMetadata readMetadata(WireReader r) {
    return new SessionMetadata(
        r.i64("creationTime"),
        r.i64("lastAccessedTime"),
        r.i32("maxInactiveInterval"),
        r.nullableString("authType"),
        r.nullableBlob("principal"),
        readFrozenBlobs(r, "notes", "notes name", "notes value"));
  }

  private static void writeBlobs(WireWriter w, Map<String, Blob> blobs) {
    w.i32(blobs.size());
    if (blobs.isEmpty()) {
      return; // notes mostly: an empty map's entry set and iterator are objects too, on every frame
    }
    for (Map.Entry<String, Blob> e : blobs.entrySet()) {
      w.string(e.getKey());
      w.blob(e.getValue());
    }
  }

  /**
   * @param nameLabel and {@code valueLabel} name the fields in an error (constants: a label joined per field read was
   *     a string per field of every frame)
   */
  /**
   * The map of a message that keeps it immutable (a delta's set, the notes): read as such, so that the message's own
   * {@code Map.copyOf} returns it as it is; none or one entry (what a frame usually carries) takes no map to build.
   */
  private static Map<String, Blob> readFrozenBlobs(WireReader r, String what, String nameLabel, String valueLabel) {
    int n = r.count(what, 8);
    if (n == 0) {
      return Map.of();
    }
    if (n == 1) {
      return Map.of(r.string(nameLabel), r.blob(valueLabel));
    }
    return Map.copyOf(readBlobs(r, what, n, nameLabel, valueLabel));
  }

  /** A map of the caller's own (a snapshot's attributes, changed in place by the backup store). */
  private static Map<String, Blob> readBlobs(WireReader r, String what, String nameLabel, String valueLabel) {
    return readBlobs(r, what, r.count(what, 8), nameLabel, valueLabel);
  }

  /**
   * @param nameLabel and {@code valueLabel} name the fields in an error (constants: a label joined per field read was
   *     a string per field of every frame)
   */
  private static Map<String, Blob> readBlobs(WireReader r, String what, int n, String nameLabel, String valueLabel) {
    Map<String, Blob> blobs = new HashMap<>(); // grows as entries arrive, never from the declared count alone
    for (int i = 0; i < n; i++) {
      String name = r.string(nameLabel);
      if (blobs.put(name, r.blob(valueLabel)) != null) {
        throw new MalformedMessageException(what + " repeats the name " + name);
      }
    }
    return blobs;
  }
}
