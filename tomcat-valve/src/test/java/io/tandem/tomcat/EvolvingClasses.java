package io.tandem.tomcat;

import java.security.Principal;
import java.util.Map;

/**
 * Two versions of one application's session classes, as source: what a rolling deploy changes. Version 2's {@code
 * Profile} lost the field {@code legacy} and gained {@code theme} (its constructor sets it to {@code "light"}); its
 * {@code Badge} gained {@code zone} ({@code "eu"}); both principal classes gained a field, and only {@code
 * StablePrincipal} declares its {@code serialVersionUID}.
 *
 * <p>Kryo's fast (positional) encoding reads a version 1 {@code Badge} with version 2 past its end, and fails; it
 * reads a version 1 {@code Profile} with version 2 without an error, into the wrong fields (fields go by name order:
 * {@code legacy, name, visits} then {@code name, theme, visits}).
 */
final class EvolvingClasses {
  static final String PROFILE = "com.example.evolving.Profile";
  static final String BADGE = "com.example.evolving.Badge";
  static final String STABLE = "com.example.evolving.StablePrincipal";
  static final String PLAIN = "com.example.evolving.PlainPrincipal";

  private EvolvingClasses() {}

  static Map<String, String> version1() {
    return Map.of(
        PROFILE, """
            package com.example.evolving;
            public class Profile implements java.io.Serializable {
              private String name;
              private int visits;
              private String legacy;
              public Profile() {}
              public void fill(String name) { this.name = name; this.visits = 3; this.legacy = "v1 only"; }
              @Override public String toString() { return "Profile[name=" + name + ", visits=" + visits + "]"; }
            }
            """,
        BADGE, badge(""),
        STABLE, principal("StablePrincipal", "private static final long serialVersionUID = 1L;", ""),
        PLAIN, principal("PlainPrincipal", "", ""));
  }

  static Map<String, String> version2() {
    return Map.of(
        PROFILE, """
            package com.example.evolving;
            public class Profile implements java.io.Serializable {
              private String name;
              private int visits;
              private String theme = "light";
              public Profile() {}
              public void fill(String name) { this.name = name; this.visits = 3; }
              @Override public String toString() {
                return "Profile[name=" + name + ", visits=" + visits + ", theme=" + theme + "]";
              }
            }
            """,
        BADGE, badge("private String zone = \"eu\";"),
        STABLE, principal("StablePrincipal", "private static final long serialVersionUID = 1L;", "private String department;"),
        PLAIN, principal("PlainPrincipal", "", "private String department;"));
  }

  private static String badge(String extraField) {
    return """
        package com.example.evolving;
        public class Badge implements java.io.Serializable {
          private String label;
          %s
          public Badge() {}
          public Badge(String label) { this.label = label; }
          @Override public String toString() { return "Badge[" + label + %s + "]"; }
        }
        """.formatted(extraField, extraField.isEmpty() ? "\"\"" : "\", zone=\" + zone");
  }

  /** A version's {@code Badge} labelled {@code label}, made through {@code loader}. */
  static Object badge(ClassLoader loader, String label) {
    try {
      return Class.forName(BADGE, true, loader).getConstructor(String.class).newInstance(label);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String principal(String name, String serialVersionUid, String extraField) {
    return """
        package com.example.evolving;
        public class %1$s implements java.security.Principal, java.io.Serializable {
          %2$s
          private final String name;
          %3$s
          public %1$s(String name) { this.name = name; }
          @Override public String getName() { return name; }
          @Override public String toString() { return "%1$s[" + name + %4$s + "]"; }
        }
        """.formatted(name, serialVersionUid, extraField,
        extraField.isEmpty() ? "\"\"" : "\", department=\" + department");
  }

  /** A version's {@code Profile}, filled for {@code name}, made through {@code loader}. */
  static Object profile(ClassLoader loader, String name) {
    try {
      Class<?> type = Class.forName(PROFILE, true, loader);
      Object profile = type.getConstructor().newInstance();
      type.getMethod("fill", String.class).invoke(profile, name);
      return profile;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A version's principal of class {@code className} for {@code name}, made through {@code loader}. */
  static Principal principal(ClassLoader loader, String className, String name) {
    try {
      return (Principal) Class.forName(className, true, loader).getConstructor(String.class).newInstance(name);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
