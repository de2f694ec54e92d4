package io.tandem.core.config;

import java.util.regex.Pattern;

/** Syntax checks for the class names and class patterns operators write. */
final class ClassPatterns {
  private static final String IDENT = "[\\p{L}_$][\\p{L}\\p{N}_$]*";
  private static final Pattern CLASS_NAME = Pattern.compile(IDENT + "(\\." + IDENT + ")*");
  private static final Pattern CLASS_PATTERN = Pattern.compile(IDENT + "(\\." + IDENT + ")*(\\.\\*\\*?)?");

  private ClassPatterns() {}

  static boolean isValidClassName(String name) {
    return CLASS_NAME.matcher(name).matches();
  }

  static boolean isValid(String pattern) {
    return pattern.equals("*") || CLASS_PATTERN.matcher(pattern).matches();
  }
}
