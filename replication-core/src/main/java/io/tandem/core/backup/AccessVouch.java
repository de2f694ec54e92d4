package io.tandem.core.backup;

/**
 * What a node holding a backup can vouch for of its session's last access, on its own clock. The copy's last-access
 * time was stamped by the owner on the owner's time of day; two nodes' clocks may disagree by minutes (a step, a
 * drifting VM), and an heir that judged an adopted session's idle time by the dead owner's stamp against its own
 * clock expired sessions a moment after their users had used them (docs/protocol.md 11.3.23, simulation seed 62683).
 *
 * <p>What the holder knows on its own clock: when the newest last-access time arrived, if it arrived as a later
 * time than the one held before (a touch, or an update the access caused). The access happened before it arrived,
 * and at most the touch lag before (an access reaches the buddy within the touch lag, 6.9). So the stamp is judged
 * against that window: one earlier than the window (the owner's clock behind this one's) counts from the window's
 * start, one later (ahead) from its end. A request's flush arrives right after its access, so the first copy an owner
 * sends as it flushes a request counts as an arrival too (11.3.50). Without an arrival known (a first copy by state
 * transfer or a hand-over, or a copy re-sent without a newer access), only "not after now" holds. With clocks that agree, the stamp lies in the window and is
 * kept as it is.
 *
 * @param arrivedAt when the newest last-access time arrived, on this node's time of day now (a step of this node's
 *     clock since it arrived moves it along: it is measured on the store's ticker), or {@link #NOT_SEEN}
 * @param now this node's time of day when the vouch was made
 */
public record AccessVouch(long arrivedAt, long now) {
  /** No arrival of a newer last-access time is known. */
  static final long NOT_SEEN = Long.MIN_VALUE;

  /**
   * @param arrivedOnTicker when the newest last-access time arrived on the store's lifetimes clock, or NOT_SEEN
   * @param tickerNow the lifetimes clock now
   * @param timeOfDay this node's time of day now
   */
  static AccessVouch of(long arrivedOnTicker, long tickerNow, long timeOfDay) {
    return new AccessVouch(arrivedOnTicker == NOT_SEEN ? NOT_SEEN : timeOfDay - (tickerNow - arrivedOnTicker), timeOfDay);
  }

  /** The last access {@code stamped} by the owner, as this node vouches for it on its own clock. */
  public long lastAccess(long stamped, long touchLagMillis) {
    if (arrivedAt == NOT_SEEN) {
      return Math.min(stamped, now);
    }
    return Math.max(arrivedAt - touchLagMillis, Math.min(stamped, arrivedAt));
  }
}
