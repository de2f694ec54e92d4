package io.tandem.benchmarks.replication;

/**
 * One variant's result as reported ({@code results.json}); figures are null where they could not be computed.
 *
 * @param variant the variant's label
 * @param failure why the variant has no figures (or they are suspect), null when it ran cleanly
 * @param updatesPerSecond acknowledged updates per second at the owner
 * @param ownerMicrosPerUpdate owner process CPU per acknowledged update
 * @param buddyMicrosPerUpdate buddy process CPU per handled update
 * @param pairMicrosPerUpdate the two added
 * @param ownerCores the owner's average CPU over its window
 * @param buddyCores the buddy's
 * @param ownerUpdates updates in the owner's window: acknowledged (SYNC, floors) or accepted into the queue (ASYNC)
 * @param buddyUpdates updates applied in the buddy's window: for Tandem, session versions it acknowledged (an ASYNC
 *     message may carry several coalesced updates); for the floors, frames handled
 * @param buddyRequests messages the buddy handled in its window
 * @param windowMillis the owner's window as measured by its clock
 * @param failedUpdates updates that the owner's engine did not accept (flush outcomes other than REPLICATED in SYNC,
 *     QUEUED in ASYNC) in the window
 * @param otherOutcomes Tandem: those flush outcomes over the whole run ({@code none})
 * @param ownerThrottledPeriods CFS periods in which the owner's group ran out of quota during the window; -1 without
 *     a cgroup
 * @param buddyThrottledPeriods the same for the buddy
 * @param overCeiling taskset fallback only: a process averaged more than the cap
 * @param producedUpdates Tandem: every update the owner's writers produced, whatever its outcome, from their start
 *     to their end; null for the floors
 * @param appliedAfterDrain Tandem: the updates the buddy held after the owner drained (see {@code TandemNode})
 * @param drained Tandem: whether the owner's engine had nothing queued or unanswered before it stopped
 * @param engine Tandem: the owner engine's counters at the end ({@code sent:…,fulls:…,acks:…,overflows:…})
 * @param pausesDetected Tandem: JVM pauses over the pause threshold the two engines detected (an overloaded machine;
 *     each quarantines the node's sessions for a while, so the figures describe that); null for the floors
 * @param logs the directory of the two processes' logs
 */
record VariantOutcome(String variant, String failure, Double updatesPerSecond, Double ownerMicrosPerUpdate,
    Double buddyMicrosPerUpdate, Double pairMicrosPerUpdate, Double ownerCores, Double buddyCores, long ownerUpdates,
    long buddyUpdates, long buddyRequests, long windowMillis, long failedUpdates, String otherOutcomes,
    long ownerThrottledPeriods, long buddyThrottledPeriods, boolean overCeiling, Long producedUpdates,
    Long appliedAfterDrain, Boolean drained, String engine, Long pausesDetected, String logs) {

  static VariantOutcome failed(Variant variant, String failure, String logs) {
    return new VariantOutcome(variant.label(), failure, null, null, null, null, null, null, 0, 0, 0, 0, 0, "none", -1,
        -1, false, null, null, null, null, null, logs);
  }

  /**
   * Tandem: updates the owner produced that the buddy did not hold after the drain (a queue that dropped them, or
   * sends that failed and were not repaired); null for the floors.
   */
  Long unappliedAfterDrain() {
    return producedUpdates == null || appliedAfterDrain == null ? null : producedUpdates - appliedAfterDrain;
  }

  boolean measured() {
    return updatesPerSecond != null && ownerMicrosPerUpdate != null && buddyMicrosPerUpdate != null;
  }

  VariantFigures figures() {
    return new VariantFigures(updatesPerSecond, ownerMicrosPerUpdate, buddyMicrosPerUpdate, ownerCores, buddyCores);
  }

  /** A finite double, or null (JSON has no NaN). */
  static Double finite(double value) {
    return Double.isFinite(value) ? value : null;
  }
}
