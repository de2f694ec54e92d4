package io.tandem.benchmarks.codec;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Session values of the shapes applications keep, for comparing the Kryo field encodings: a user's profile (eight
 * fields of common types) and a shopping cart (a list of lines, each an object of four fields). Plain classes with
 * no-arg constructors, as session classes usually are.
 */
public final class SampleValues {
  private SampleValues() {}

  /** The value a benchmark or test encodes, by name: {@code profile}, or {@code cart} of 20 lines. */
  public static Object named(String name) {
    return switch (name) {
      case "profile" -> profile();
      case "cart" -> cart(20);
      default -> throw new IllegalArgumentException("no sample value " + name + ": profile or cart");
    };
  }

  /** One user's profile. */
  public static UserProfile profile() {
    UserProfile profile = new UserProfile();
    profile.userId = "u-000042";
    profile.displayName = "Ada Lovelace";
    profile.email = "ada@example.com";
    profile.locale = Locale.UK;
    profile.visits = 117;
    profile.lastLoginMillis = 1_790_000_000_000L;
    profile.admin = false;
    profile.roles = new ArrayList<>(List.of("user", "beta"));
    return profile;
  }

  /** A cart of {@code lines} lines. */
  public static Cart cart(int lines) {
    Cart cart = new Cart();
    cart.currency = "EUR";
    cart.lines = new ArrayList<>();
    BigDecimal total = BigDecimal.ZERO;
    for (int i = 0; i < lines; i++) {
      CartLine line = new CartLine();
      line.sku = "SKU-" + (10_000 + i);
      line.title = "Item number " + i;
      line.quantity = 1 + i % 3;
      line.unitPrice = new BigDecimal("9.99").add(BigDecimal.valueOf(i));
      cart.lines.add(line);
      total = total.add(line.unitPrice.multiply(BigDecimal.valueOf(line.quantity)));
    }
    cart.total = total;
    cart.updated = Instant.ofEpochSecond(1_790_000_000L);
    return cart;
  }

  /** A user's profile. */
  public static final class UserProfile implements Serializable {
    private static final long serialVersionUID = 1L;
    String userId;
    String displayName;
    String email;
    Locale locale;
    int visits;
    long lastLoginMillis;
    boolean admin;
    List<String> roles;
  }

  /** A shopping cart. */
  public static final class Cart implements Serializable {
    private static final long serialVersionUID = 1L;
    String currency;
    List<CartLine> lines;
    BigDecimal total;
    Instant updated;
  }

  /** One line of a cart. */
  public static final class CartLine implements Serializable {
    private static final long serialVersionUID = 1L;
    String sku;
    String title;
    int quantity;
    BigDecimal unitPrice;
  }
}
