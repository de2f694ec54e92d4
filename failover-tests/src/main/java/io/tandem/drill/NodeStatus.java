package io.tandem.drill;

/**
 * Tandem's JMX figures of one node as {@code drill-webapp/status.jsp} prints them.
 *
 * @param buddy the node this one replicates to, or "" while it has none
 * @param members the members of the view the node acts on
 * @param withoutBackup owned sessions of which the buddy holds no copy right now
 */
record NodeStatus(String route, String buddy, java.util.Set<String> members, int owned, int backups, int withoutBackup) {

  static NodeStatus parse(String route, String body) {
    String members = field(body, "members");
    return new NodeStatus(route, field(body, "buddy"),
        members.isEmpty() ? java.util.Set.of() : java.util.Set.of(members.split(",")),
        Integer.parseInt(field(body, "owned")), Integer.parseInt(field(body, "backups")),
        Integer.parseInt(field(body, "withoutBackup")));
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
