package io.tandem.drill.values;

import java.io.Serializable;

/**
 * An application value whose class the poison drill's {@code allowedClasses} does not list: Tandem must refuse it
 * (at {@code setAttribute}, or when the request ends for one inside another value), never answer 200 and drop it.
 */
public final class Secret implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String text;

  public Secret(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }
}
