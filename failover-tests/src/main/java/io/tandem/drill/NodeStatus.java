package io.tandem.drill;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Tandem's JMX figures of one node as {@code drill-webapp/status.jsp} prints them.
 *
 * @param buddy the node this one replicates to, or "" while it has none
 * @param members the members of the view the node acts on
 * @param withoutBackup owned sessions of which the buddy holds no copy right now
 * @param refusedPeers peers that spoke the handshake and were refused ({@code RefusedPeers})
 * @param refusalsByCause every refusal by cause since start, {@code CAUSE=n,...} ({@code RefusalsByCause})
 * @param refusedMembers members that failed to prove the shared secret, {@code id (why); ...} ({@code RefusedMembers})
 * @param protocolVersions the versions the node speaks, then what each connected peer speaks with it, {@code 5 to 6;
 *     n2=6, n3=5} ({@code ProtocolVersions})
 * @param attributesUnreadable values this node's application could not read and dropped alone ({@code AttributesUnreadable})
 */
record NodeStatus(String route, String buddy, Set<String> members, int owned, int backups, int withoutBackup, long refusedPeers,
    String refusalsByCause, String refusedMembers, String protocolVersions, long attributesUnreadable) {

  static NodeStatus parse(String route, String body) {
    String members = field(body, "members");
    return new NodeStatus(route, field(body, "buddy"),
        members.isEmpty() ? Set.of() : Set.of(members.split(",")),
        Integer.parseInt(field(body, "owned")), Integer.parseInt(field(body, "backups")),
        Integer.parseInt(field(body, "withoutBackup")), Long.parseLong(field(body, "refusedPeers")),
        URLDecoder.decode(field(body, "refusalsByCause"), StandardCharsets.UTF_8),
        URLDecoder.decode(field(body, "refusedMembers"), StandardCharsets.UTF_8),
        URLDecoder.decode(field(body, "protocolVersions"), StandardCharsets.UTF_8),
        Long.parseLong(field(body, "attributesUnreadable")));
  }

  /** The versions the node speaks: {@code 5}, or {@code 5 to 6}. */
  String spokenVersions() {
    return protocolVersions.split(";", 2)[0].trim();
  }

  /** The version each connected peer speaks with this node, by route. */
  java.util.Map<String, Integer> versionsByPeer() {
    String[] parts = protocolVersions.split(";", 2);
    java.util.Map<String, Integer> byPeer = new java.util.TreeMap<>();
    if (parts.length > 1) {
      for (String entry : parts[1].split(",")) {
        String[] pair = entry.trim().split("=");
        if (pair.length == 2) {
          byPeer.put(pair[0], Integer.parseInt(pair[1]));
        }
      }
    }
    return byPeer;
  }

  /** Refusals counted under {@code cause} ({@code WRONG_SECRET}, ...), 0 when none. */
  long refusals(String cause) {
    for (String entry : refusalsByCause.split(",")) {
      if (entry.startsWith(cause + "=")) {
        return Long.parseLong(entry.substring(cause.length() + 1));
      }
    }
    return 0;
  }

  /** Whether {@code RefusedMembers} names {@code node}. */
  boolean refused(String node) {
    for (String entry : refusedMembers.split(";")) {
      String trimmed = entry.trim();
      if (trimmed.equals(node) || trimmed.startsWith(node + " ")) {
        return true;
      }
    }
    return false;
  }

  private static String field(String body, String name) {
    for (String token : body.trim().split("\\s+")) {
      if (token.startsWith(name + "=")) {
        return token.substring(name.length() + 1);
      }
    }
    throw new IllegalArgumentException("no " + name + " in the status '" + body + "'");
  }
}
