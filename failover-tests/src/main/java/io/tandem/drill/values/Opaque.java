package io.tandem.drill.values;

/**
 * An allowed class that is not {@link java.io.Serializable}, stored inside a list: a value that cannot be replicated
 * as the application wrote it is refused when the request ends.
 */
public final class Opaque {
  private final String text;

  public Opaque(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }
}
