package io.tandem.core.wire;

import java.util.OptionalInt;

/**
 * The protocol versions a node speaks, {@code lowest} to {@code highest}, both included. Two nodes speak the highest
 * version both ranges hold ({@link #sharedHighest}); with none shared they refuse each other at the handshake.
 *
 * <p>The policy: each version speaks the one before it ({@code lowest = highest - 1} from version 6 on), so a cluster
 * upgrades by one version node by node and loses nothing. Version 5 is the first that negotiates: it speaks only
 * itself, and version 4 nodes (which required an exact match and cannot read a version-5 hello) are refused by name.
 *
 * <p>{@link #spoken()} is what this build advertises. Its highest version can be raised by one, and only by one, with
 * the system property {@value #HIGHEST_PROPERTY} for the rolling-upgrade drill: the same code then claims the next
 * version, which is how the drill plays "the next release" without a second source tree. It is a test hook, not a
 * setting: it is read once, when this class is loaded; any other value makes {@link #spoken()} throw, naming the
 * property, so a node with a mistyped value does not start; and the transport logs the range it advertises at start.
 * No release of Tandem is meant to run with it.
 */
public record ProtocolVersions(int lowest, int highest) {
  /** The first version that negotiates: its hello carries a range, framed so that every later version reads it. */
  public static final int FIRST_NEGOTIATING = 5;
  /** The system property of the rolling-upgrade drill's test hook; see the class comment. */
  public static final String HIGHEST_PROPERTY = "tandem.protocol.highest";

  /** What this code implements: from the first negotiating version to {@link MessageCodec#PROTOCOL_VERSION}. */
  public static final ProtocolVersions IMPLEMENTED = new ProtocolVersions(FIRST_NEGOTIATING, MessageCodec.PROTOCOL_VERSION);

  private static final ProtocolVersions SPOKEN;
  private static final String HOOK_ERROR;

  static {
    ProtocolVersions spoken = IMPLEMENTED;
    String error = null;
    try {
      spoken = withTestHook(System.getProperty(HIGHEST_PROPERTY));
    } catch (IllegalStateException e) {
      error = e.getMessage();
    }
    SPOKEN = spoken;
    HOOK_ERROR = error;
  }

  /**
   * What this build speaks with the test hook's property set to {@code raised} (null: not set).
   *
   * @throws IllegalStateException for any value but this build's highest version plus one, naming the property
   */
  static ProtocolVersions withTestHook(String raised) {
    if (raised == null) {
      return IMPLEMENTED;
    }
    int next = IMPLEMENTED.highest + 1;
    if (!raised.strip().equals(Integer.toString(next))) {
      throw new IllegalStateException("the system property " + HIGHEST_PROPERTY + "=" + raised + " is a test hook of the"
          + " rolling-upgrade drill and may only be " + next + " (this build's highest protocol version plus one); remove it");
    }
    return new ProtocolVersions(IMPLEMENTED.lowest, next);
  }

  public ProtocolVersions {
    if (lowest < 1 || highest > 255 || lowest > highest) {
      throw new IllegalArgumentException("protocol versions " + lowest + " to " + highest
          + ": need 1 <= lowest <= highest <= 255 (a frame carries its version in one byte)");
    }
  }

  /** One version alone, as a node before version negotiation spoke. */
  public static ProtocolVersions only(int version) {
    return new ProtocolVersions(version, version);
  }

  /**
   * The versions this node advertises: {@link #IMPLEMENTED}, or with the test hook its highest plus one.
   *
   * @throws IllegalStateException if the test hook's property holds anything but this build's highest plus one
   */
  public static ProtocolVersions spoken() {
    if (HOOK_ERROR != null) {
      throw new IllegalStateException(HOOK_ERROR);
    }
    return SPOKEN;
  }

  /** Whether the test hook raised {@link #spoken()} above what this code implements. */
  public static boolean raisedByTestHook() {
    return HOOK_ERROR == null && SPOKEN.highest > IMPLEMENTED.highest;
  }

  /** The highest version both ranges hold, or empty when they share none. */
  public OptionalInt sharedHighest(ProtocolVersions other) {
    int highestBoth = Math.min(highest, other.highest);
    return highestBoth >= Math.max(lowest, other.lowest) ? OptionalInt.of(highestBoth) : OptionalInt.empty();
  }

  public boolean contains(int version) {
    return version >= lowest && version <= highest;
  }

  /** {@code 5} or {@code 5 to 6}: how the logs and refusals name a range. */
  @Override
  public String toString() {
    return lowest == highest ? Integer.toString(lowest) : lowest + " to " + highest;
  }
}
