package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One or more representative instances of every message type, edge cases included. */
final class SampleMessages {
  private SampleMessages() {}

  static Blob blob(String s) {
    return Blob.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  static SessionSnapshot snapshot(String id) {
    SessionMetadata metadata =
        new SessionMetadata(1_000, 2_000, 1800, "FORM", blob("principal-bytes"), Map.of("org.apache.catalina.FORM_REQUEST", blob("saved")));
    return new SessionSnapshot(id, 3, 17, metadata, Map.of("cart", blob("book,pen"), "user", blob("alice"), "empty", Blob.EMPTY));
  }

  static List<Message> all() {
    SessionMetadata anonymous = SessionMetadata.created(5, 0);
    return List.of(
        new Message.Handshake(ProtocolVersions.IMPLEMENTED, "tandem-cluster", new NodeId("node-1"), blob("nonce"), blob("proof")),
        new Message.FullSession(snapshot("s-full")),
        new Message.FullSession(new SessionSnapshot("s-empty", 0, 0, anonymous, Map.of())),
        new Message.SessionDelta("s-delta", 3, 17, 18, snapshot("x").metadata(), Map.of("a", blob("1")), Set.of("b", "c")),
        new Message.SessionDelta("s-delta", 3, 17, 18, null, Map.of(), Set.of()),
        new Message.TouchBatch(List.of(new Message.Touch("s1", 1, 100), new Message.Touch("s2", 2, 200))),
        new Message.TouchBatch(List.of()),
        new Message.Invalidate("s1", 1, 9, Message.InvalidateReason.EXPIRED),
        new Message.IdChange("old", "new-ünïcödé", 2, 10),
        new Message.Ack(4, 5),
        new Message.AckRange(5),
        new Message.Nack(Message.Nack.Reason.GAP, 1, 2, "backup is at version 2"),
        new Message.Nack(Message.Nack.Reason.BACKUP_STORE_FULL, 0, 0, "65536 of maxBackupBytes 65536 held"),
        new Message.Locate("s1"),
        new Message.LocateReply("s1", Message.LocateReply.Holding.BACKUP, 3, 4),
        new Message.LocateReply("s1", Message.LocateReply.Holding.ENDED, 3, 0),
        new Message.LocateReply("s1", Message.LocateReply.Holding.UNCONFIRMED, 3, 4),
        new Message.Migrate("s1", new NodeId("node-2"), 7),
        new Message.BulkTransfer(Message.BulkTransfer.Purpose.BACKUP, List.of(snapshot("b1"), snapshot("b2"))),
        new Message.BulkTransfer(Message.BulkTransfer.Purpose.HANDOFF, List.of()),
        new Message.BulkRefusals(List.of(
            new Message.BulkRefusals.Refusal("b1", new Message.Nack(Message.Nack.Reason.STALE_EPOCH, 4, 9, "backup of session b1 is at epoch 4")),
            new Message.BulkRefusals.Refusal("b2", new Message.Nack(Message.Nack.Reason.INVALIDATED, 3, 0, "session b2 was invalidated")),
            new Message.BulkRefusals.Refusal("b3", new Message.Nack(Message.Nack.Reason.BACKUP_STORE_FULL, 0, 0, "full")))),
        new Message.Nack(Message.Nack.Reason.CONTEXT_NOT_DEPLOYED, 0, 0, "node-2 runs no context [/shop]"),
        Message.Nack.refused(Message.Nack.Refusal.BEING_HANDED, 4, 2, "session s is being handed to n2; ask every member"),
        new Message.InContext("/shop", new Message.FullSession(snapshot("s-in-context"))),
        new Message.InContext("", new Message.Locate("s1")),
        new Message.InContext("/ünï", new Message.BulkTransfer(Message.BulkTransfer.Purpose.HANDOFF, List.of(snapshot("h1")))),
        new Message.Contexts(42, 3, List.of("/shop", "", "/ünï")),
        new Message.Contexts(7, 0, List.of()));
  }
}
