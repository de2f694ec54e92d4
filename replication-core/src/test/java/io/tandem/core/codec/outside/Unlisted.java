package io.tandem.core.codec.outside;

import java.io.Serializable;

/** A class no test allow-list names: deserializing it must be refused. */
public final class Unlisted implements Serializable {
  private static final long serialVersionUID = 1L;
  public String value = "x";
}
