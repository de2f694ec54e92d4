package io.tandem.drill.values;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.zip.CRC32;

/**
 * The values of the {@code poison-values} drill: what a write of a kind with a distinct id stores, and the one-token
 * description a listing of the session shows for it. The drill application ({@code poison.jsp}, which gets this
 * class in {@code WEB-INF/classes}) builds and lists values with it; the drill describes what it wrote with it, so a
 * value read back after a failover is compared with the value written, content and class.
 *
 * <p>The drill's {@code context.xml} allows {@link Note}, {@link Holder}, {@link Opaque} and the custom principal by
 * {@code allowedClasses}, not {@link Secret}, and sets {@code maxValueSize="16KiB"}. So, by kind:
 *
 * <ul>
 *   <li>{@code plain} (a String), {@code note} (an allowed class), {@code list} (an ArrayList of Strings) are allowed;
 *   <li>{@code builder} (a StringBuilder) is allowed by Tandem's defaults;
 *   <li>{@code secret} (a refused class) is refused by {@code setAttribute} (an {@link IllegalArgumentException});
 *   <li>{@code big} (over {@code maxValueSize}), {@code holder} (an allowed class with a final field of a refused
 *       class), {@code opaque-list} (a list holding an object that is not {@link java.io.Serializable}) and
 *       {@code secret-list} (a list holding a refused class) can only be refused when the request ends.
 * </ul>
 *
 * A description is a single token without spaces, commas or {@code =}: {@code <simple class name>/<content>}, with
 * long strings as their first characters, length and CRC-32.
 */
public final class DrillValues {
  /** Every kind, in the order a user's writes cycle through them. */
  public static final List<String> KINDS =
      List.of("plain", "note", "builder", "big", "list", "holder", "opaque-list", "secret", "secret-list");
  /** Characters of a {@code big} value: its serialized form is over the drill's {@code maxValueSize} (16 KiB). */
  public static final int BIG_CHARS = 20 * 1024;
  private static final int SHORT = 64;

  private DrillValues() {}

  /** The value a write of {@code kind} with {@code id} stores. */
  public static Object make(String kind, String id) {
    return switch (kind) {
      case "plain" -> id;
      case "note" -> new Note(id);
      case "builder" -> new StringBuilder(id);
      case "big" -> (id + ".").repeat(BIG_CHARS / (id.length() + 1) + 1).substring(0, BIG_CHARS);
      case "list" -> new ArrayList<>(List.of(id, id + "-2"));
      case "holder" -> new Holder(new Secret(id));
      case "opaque-list" -> new ArrayList<>(List.of(new Opaque(id)));
      case "secret" -> new Secret(id);
      case "secret-list" -> new ArrayList<>(List.of(new Secret(id)));
      default -> throw new IllegalArgumentException("no value kind '" + kind + "'; kinds: " + KINDS);
    };
  }

  /** The one-token description of {@code value}, as a listing of the session shows it. */
  public static String describe(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString(); // the drill's seq
    }
    String type = value.getClass().getSimpleName();
    if (value instanceof CharSequence text) {
      return type + "/" + text(text.toString());
    }
    if (value instanceof Note note) {
      return type + "/" + text(note.text());
    }
    if (value instanceof Secret secret) {
      return type + "/" + text(secret.text());
    }
    if (value instanceof Opaque opaque) {
      return type + "/" + text(opaque.text());
    }
    if (value instanceof Holder holder) {
      return type + "/" + describe(holder.secret());
    }
    if (value instanceof Collection<?> elements) {
      StringJoiner joined = new StringJoiner("|", type + "/[", "]");
      elements.forEach(e -> joined.add(describe(e)));
      return joined.toString();
    }
    return value.getClass().getName() + "/" + token(String.valueOf(value));
  }

  /** The authenticated principal as a token: {@code none}, or {@code <simple class name>:<toString>}. */
  public static String describePrincipal(Principal principal) {
    return principal == null ? "none" : principal.getClass().getSimpleName() + ":" + token(principal.toString());
  }

  private static String text(String text) {
    if (text == null) {
      return "null";
    }
    if (text.length() <= SHORT) {
      return token(text);
    }
    CRC32 crc = new CRC32();
    crc.update(text.getBytes(StandardCharsets.UTF_8));
    return token(text.substring(0, 24)) + "~" + text.length() + "~" + Long.toHexString(crc.getValue()).toLowerCase(Locale.ROOT);
  }

  private static String token(String text) {
    return text.replaceAll("[\\s,=]", "_");
  }
}
