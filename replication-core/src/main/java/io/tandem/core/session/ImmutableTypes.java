package io.tandem.core.session;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;
import java.util.UUID;

/**
 * Decides whether a value is provably immutable, so that reading it cannot hide an in-place change. Only final JDK
 * value types qualify, plus classes the operator lists; everything else, including collections and arrays, may be
 * mutated by whoever read it.
 */
public final class ImmutableTypes {
  private static final Set<Class<?>> JDK_IMMUTABLE =
      Set.of(
          String.class, Boolean.class, Character.class, Byte.class, Short.class, Integer.class, Long.class,
          Float.class, Double.class, BigDecimal.class, BigInteger.class, UUID.class, java.util.Locale.class,
          java.util.Currency.class, java.net.URI.class, Class.class);

  private final Set<String> configured;

  public ImmutableTypes(Set<String> configuredClassNames) {
    this.configured = Set.copyOf(configuredClassNames);
  }

  public boolean isImmutable(Object value) {
    if (value == null) {
      return true;
    }
    Class<?> type = value.getClass();
    return JDK_IMMUTABLE.contains(type)
        || type.isEnum()
        || (type.getEnclosingClass() != null && type.getEnclosingClass().isEnum())
        || isJavaTimeValue(type)
        || configured.contains(type.getName());
  }

  private static boolean isJavaTimeValue(Class<?> type) {
    // Every public class in java.time and its subpackages is an immutable value type.
    String pkg = type.getPackageName();
    return pkg.equals("java.time") || pkg.startsWith("java.time.");
  }
}
