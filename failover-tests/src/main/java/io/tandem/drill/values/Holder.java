package io.tandem.drill.values;

import java.io.Serializable;

/** An allowed class with a {@code final} field of a refused class ({@link Secret}): refusable only when encoded. */
public final class Holder implements Serializable {
  private static final long serialVersionUID = 1L;
  private final Secret secret;

  public Holder(Secret secret) {
    this.secret = secret;
  }

  public Secret secret() {
    return secret;
  }
}
