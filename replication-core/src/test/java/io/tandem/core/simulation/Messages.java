package io.tandem.core.simulation;

import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.wire.Message;
import java.util.stream.Collectors;

/** One line per message for a run's trace: its type and what decides ownership (ids, epochs, versions). */
final class Messages {
  private Messages() {}

  static String brief(Message message) {
    if (message instanceof Message.FullSession full) {
      return "FullSession(" + snapshot(full.snapshot()) + ")";
    }
    if (message instanceof Message.SessionDelta delta) {
      return "SessionDelta(" + delta.sessionId() + " e" + delta.epoch() + " v" + delta.baseVersion() + "->" + delta.version()
          + " set " + delta.set().keySet().stream().sorted().toList() + " removed " + delta.removed().stream().sorted().toList() + ")";
    }
    if (message instanceof Message.BulkTransfer bulk) {
      return "BulkTransfer(" + bulk.purpose() + " "
          + bulk.sessions().stream().map(Messages::snapshot).collect(Collectors.joining(", ", "[", "]")) + ")";
    }
    String text = message.toString();
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }

  private static String snapshot(SessionSnapshot s) {
    return s.id() + " e" + s.epoch() + " v" + s.version() + " " + s.attributes().keySet().stream().sorted().toList();
  }
}
