package io.tandem.core.spi;

import java.util.Objects;

/** A live member as membership sees it: its node id and the address its transport listens on. */
public record Member(NodeId id, String transportAddress) {
  public Member {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(transportAddress, "transportAddress");
  }
}
