package io.tandem.drill;

import java.util.Map;
import java.util.TreeMap;

/**
 * One answer of the drill application ({@code drill-webapp/session.jsp} or {@code poison.jsp}), parsed: {@code ok
 * prev=<seq> node=<route> user=<name>}, {@code session node=.. user=.. {name=value, ...}}, {@code no-session node=..
 * user=..}, or the FORM login page. {@code poison.jsp} adds {@code principal=<class>:<name>/<detail>}.
 *
 * @param previousSeq for "ok" of a write, the session's {@code seq} before it; -1 when it had none
 * @param principal the authenticated principal as {@code poison.jsp} describes it; "" from pages that do not
 */
record AppResponse(Kind kind, long previousSeq, String node, String user, String principal, Map<String, String> attributes) {
  static final AppResponse NONE = new AppResponse(Kind.NONE, -1, "", "", "", Map.of());

  enum Kind {
    OK,
    SESSION,
    NO_SESSION,
    LOGIN_PAGE,
    /** No answer from the application (a failed request or another page). */
    NONE
  }

  static AppResponse parse(String body) {
    if (body.contains("j_security_check")) {
      return new AppResponse(Kind.LOGIN_PAGE, -1, "", "", "", Map.of());
    }
    int space = body.indexOf(' ');
    String head = space < 0 ? body : body.substring(0, space);
    Kind kind = switch (head) {
      case "ok" -> Kind.OK;
      case "session" -> Kind.SESSION;
      case "no-session" -> Kind.NO_SESSION;
      default -> Kind.NONE;
    };
    if (kind == Kind.NONE) {
      return NONE;
    }
    int brace = body.indexOf('{');
    String fields = brace < 0 ? body : body.substring(0, brace);
    return new AppResponse(kind, Long.parseLong(field(fields, "prev", "-1")), field(fields, "node", ""),
        field(fields, "user", ""), field(fields, "principal", ""), brace < 0 ? Map.of() : attributes(body.substring(brace)));
  }

  private static String field(String fields, String name, String absent) {
    for (String token : fields.split(" ")) {
      if (token.startsWith(name + "=")) {
        return token.substring(name.length() + 1);
      }
    }
    return absent;
  }

  /** Parses the application's "{k0=v0, k1=v1}" listing. */
  static Map<String, String> attributes(String listing) {
    Map<String, String> values = new TreeMap<>();
    if (!listing.startsWith("{") || !listing.endsWith("}") || listing.length() < 2) {
      return values;
    }
    for (String pair : listing.substring(1, listing.length() - 1).split(", ")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        values.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return values;
  }
}
