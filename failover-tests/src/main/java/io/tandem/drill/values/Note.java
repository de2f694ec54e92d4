package io.tandem.drill.values;

import java.io.Serializable;

/** An application value whose class the poison drill's {@code allowedClasses} lists: it must survive a failover. */
public final class Note implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String text;

  public Note(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }
}
