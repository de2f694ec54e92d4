package io.tandem.spring;

import io.tandem.tomcat.TandemManager;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code tandem.*} properties: every {@code <Manager>} attribute of {@link TandemManager} is {@code tandem.}
 * followed by its name in kebab case ({@code tandem.shared-secret-file}, or {@code TANDEM_SHAREDSECRETFILE} as an
 * environment variable), plus {@code tandem.jvm-route} (the Engine's jvmRoute, which a context.xml user sets in
 * server.xml) and {@code tandem.enabled}.
 *
 * <p>Values stay strings and are handed to the manager as Tomcat's digester hands it a context.xml's attributes, so
 * they are validated by the manager itself when the context starts: the same messages, all violations at once. A
 * {@code tandem.*} key that names no attribute is handed over too, so the manager reports it as unknown, listing
 * the valid ones, instead of it being silently ignored.
 *
 * <p>Keys are matched ignoring case, '-', '_' and '.', the ways Spring spells one property in different sources.
 * A known attribute is bound by its canonical name first, so Spring's precedence between sources holds.
 *
 * @param attributes manager attribute name (as in context.xml) to value
 * @param jvmRoute the Engine's jvmRoute, if set
 */
record TandemProperties(Map<String, String> attributes, Optional<String> jvmRoute) {
  static final String PREFIX = "tandem";
  private static final Set<String> OWN = Set.of("enabled", "jvmroute");

  TandemProperties {
    attributes = Map.copyOf(attributes);
  }

  static TandemProperties bind(Environment environment) {
    Binder binder = Binder.get(environment);
    Map<String, String> given = binder.bind(PREFIX, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
    Map<String, String> attributes = new LinkedHashMap<>();
    Set<String> known = TandemManager.attributeNames();
    for (String name : known) {
      binder.bind(PREFIX + "." + kebab(name), String.class).ifBound(value -> attributes.put(name, value));
    }
    for (Map.Entry<String, String> entry : given.entrySet()) {
      String key = normalized(entry.getKey());
      if (OWN.contains(key)) {
        continue;
      }
      String name = known.stream().filter(k -> normalized(k).equals(key)).findFirst().orElse(camel(entry.getKey()));
      attributes.putIfAbsent(name, entry.getValue());
    }
    Optional<String> jvmRoute = Optional.ofNullable(binder.bind(PREFIX + ".jvm-route", String.class).orElse(null))
        .map(String::trim).filter(route -> !route.isEmpty());
    return new TandemProperties(attributes, jvmRoute);
  }

  /** {@code sharedSecretFile} to {@code shared-secret-file}. */
  static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private static String camel(String key) {
    StringBuilder name = new StringBuilder();
    boolean upper = false;
    for (char c : key.toCharArray()) {
      if (c == '-' || c == '_' || c == '.') {
        upper = name.length() > 0;
      } else {
        name.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return name.toString();
  }

  private static String normalized(String key) {
    return key.replaceAll("[-_.]", "").toLowerCase(Locale.ROOT);
  }

  /** The shared secret and passwords masked, as in the manager's own start-up line. */
  @Override
  public String toString() {
    Map<String, String> shown = new java.util.TreeMap<>();
    attributes.forEach((name, value) ->
        shown.put(name, name.equals("sharedSecret") || name.endsWith("Password") ? "****" : value));
    return "TandemProperties" + shown + jvmRoute.map(route -> " jvmRoute=" + route).orElse("");
  }
}
