package io.tandem.benchmarks.replication;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What one pair of processes runs: Tandem itself, or one of the two NIO floors it is compared with. */
public enum Variant {
  /** The real {@code ReplicationEngine} over the real {@code GrizzlyTransport}, MODIFIED_ATTRIBUTE, SYNC. */
  TANDEM("tandem", false),
  /**
   * The same engine and workload in ASYNC mode: a flush returns once the update is queued, and the queue coalesces
   * a session's updates until its sender thread takes them.
   */
  TANDEM_ASYNC("tandem-async", false),
  /** Plain NIO, today's batching: one write per update frame, one write per ack. */
  FLOOR_PER_UPDATE("floor-per-update", false),
  /** Plain NIO, group commit: the frames queued since the last selector wake-up leave in one write, their acks in one. */
  FLOOR_BATCHED("floor-batched", true);

  private final String label;
  private final boolean batched;

  Variant(String label, boolean batched) {
    this.label = label;
    this.batched = batched;
  }

  public String label() {
    return label;
  }

  /** For the floors: whether writes and acks are gathered per selector wake-up. */
  boolean batched() {
    return batched;
  }

  boolean isFloor() {
    return !isTandem();
  }

  /** The real engine, in either mode. */
  boolean isTandem() {
    return this == TANDEM || this == TANDEM_ASYNC;
  }

  /** The variant named {@code label} (as on the command line), or an exception listing the names. */
  static Variant named(String label) {
    for (Variant v : values()) {
      if (v.label.equals(label.trim().toLowerCase(Locale.ROOT))) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown variant '" + label + "' (known: " + labels() + ")");
  }

  static String labels() {
    return Arrays.stream(values()).map(Variant::label).collect(Collectors.joining(", "));
  }
}
